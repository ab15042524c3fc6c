import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { refusalToProceed } from "./guards";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { WorkItemStatus } from "./states";
import { writeLedger } from "./write";

export interface CheckpointInput extends LeaseHolder {
  /** Optional: the versions the running code believes it holds; they must match what the item was prepared under. */
  intentVersion?: number;
  proposalVersion?: number | null;
  actor: string;
}

/**
 * The versioned check right before a commitment (an external action). Passes only if the task has no
 * cancellation boundary and neither its intent nor the confirmed proposal moved since the item was
 * prepared. Both outcomes are recorded; a refusal is thrown after the record commits.
 *
 * What it does NOT guarantee: a Stop that arrives after a passed checkpoint cannot un-send the action. The
 * engine therefore treats an item with a passed checkpoint as possibly submitted and reconciles it.
 */
export async function checkpointWorkItem(database: Database, input: CheckpointInput) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || item.status !== WorkItemStatus.running) {
      return rejectStaleLease(w, item, input.leaseToken, "checkpoint", input.actor);
    }
    const claimed = { intentVersion: input.intentVersion ?? item.preparedIntentVersion, proposalVersion: input.proposalVersion ?? item.proposalVersion };
    const mismatch =
      claimed.intentVersion !== item.preparedIntentVersion || (claimed.proposalVersion ?? null) !== (item.proposalVersion ?? null)
        ? new AppError(ErrorCode.staleIntent, "the versions presented are not the ones this work item was prepared under", {
            presented: claimed,
            prepared: { intentVersion: item.preparedIntentVersion, proposalVersion: item.proposalVersion },
          })
        : null;
    const refusal = mismatch ?? refusalToProceed(item.task, { intentVersion: item.preparedIntentVersion, proposalVersion: item.proposalVersion });
    const base = { taskId: item.taskId, workItemId: item.id, entityType: "checkpoint" as const, entityId: item.id, actor: input.actor };
    const versions = {
      preparedIntentVersion: item.preparedIntentVersion, taskIntentVersion: item.task.intentVersion,
      confirmedProposalVersion: item.proposalVersion, taskProposalVersion: item.task.proposalVersion,
    };
    if (refusal) {
      await w.event({ ...base, type: "checkpoint.rejected", reason: refusal.message, data: { code: refusal.code, ...versions } });
      return w.rejectAfterCommit(refusal);
    }
    await w.event({ ...base, type: "checkpoint.passed", data: versions });
    return { passed: true as const, intentVersion: item.task.intentVersion, proposalVersion: item.task.proposalVersion };
  });
}
