import { AppError, ErrorCode } from "../errors";
import { IncidentTarget, QUARANTINE_STATES } from "./states";

interface TaskIntent {
  id: string;
  stage: string;
  intentVersion: number;
  proposalVersion: number;
  cancelRequestedAt: Date | null;
}

/**
 * Why new work or a commitment under `task` must not proceed, or null when it may. One place for the rule
 * behind invariant 2: after the boundary nothing starts; an item prepared under an older intent (or a
 * proposal that has since changed) is stale even if the task is active again.
 */
export function refusalToProceed(task: TaskIntent, prepared: { intentVersion: number; proposalVersion?: number | null }): AppError | null {
  if (task.cancelRequestedAt) {
    return new AppError(
      ErrorCode.cancelRequested,
      `task ${task.id} was cancelled at ${task.cancelRequestedAt.toISOString()}; nothing new may start or commit`,
      {
        taskId: task.id,
        cancelRequestedAt: task.cancelRequestedAt.toISOString(),
        currentIntentVersion: task.intentVersion,
      },
    );
  }
  if (prepared.intentVersion !== task.intentVersion) {
    return new AppError(ErrorCode.staleIntent, `prepared under intent version ${prepared.intentVersion}, but the task is at ${task.intentVersion}`, {
      taskId: task.id,
      preparedIntentVersion: prepared.intentVersion,
      currentIntentVersion: task.intentVersion,
    });
  }
  if (prepared.proposalVersion != null && prepared.proposalVersion !== task.proposalVersion) {
    return new AppError(
      ErrorCode.staleIntent,
      `confirmed proposal version ${prepared.proposalVersion}, but the task's proposal is at ${task.proposalVersion}`,
      {
        taskId: task.id,
        confirmedProposalVersion: prepared.proposalVersion,
        currentProposalVersion: task.proposalVersion,
      },
    );
  }
  if (task.stage !== "active") {
    return new AppError(ErrorCode.conflict, `task ${task.id} is "${task.stage}"`, { taskId: task.id, currentState: task.stage });
  }
  return null;
}

/**
 * The claim's guard against an incident's kill switch, as SQL for both claim statements
 * (sql/report-and-claim.ts): no switch is on for the tool `tool` names — the candidate's own (`w."toolName"`, `w`
 * the WorkItem alias), or the one tool a scan reads (then PostgreSQL checks it once, before the scan, and the
 * scan's row estimate stays whole: as a per-row anti-join it made the planner sort the tool's whole queue instead of
 * reading it in order). From the switch's commit on, no item of its tool is claimed anywhere (lib/incidents).
 */
export const notQuarantinedSql = (tool: string) =>
  `NOT EXISTS (SELECT 1 FROM "Incident" i WHERE i."targetKind" = '${IncidentTarget.tool}' AND i."target" = ${tool} AND i."state" IN (${QUARANTINE_STATES.map((s) => `'${s}'`).join(", ")}))`;
export const NOT_QUARANTINED_SQL = notQuarantinedSql(`w."toolName"`);
