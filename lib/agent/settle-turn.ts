import type { Database } from "../db/client";
import { onCommitted } from "../events/bus";
import { isAppError } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { finishTask, TaskEnding } from "../ledger/finish-task";
import { ACTIVE_ITEM_STATUSES, isActiveItem, StopScope, TaskStage, WorkItemKind, WorkItemStatus } from "../ledger/states";
import { requestCancellation } from "../cancellation/steps/1-record-boundary";

export const AGENT_ACTOR = "agent:demo";

/**
 * Tasks the settler knows it will never settle: those that are not turns (a task's turn id is written when it is
 * created and never changes) and those that left `active` — stopped (a boundary is never withdrawn) or ended (a task
 * leaves `active` once: lib/ledger/transitions.ts). The answer never goes stale; the set is bounded (oldest first out)
 * for a process that runs for months.
 */
export class NothingToSettle {
  readonly #ids = new Set<string>();
  constructor(readonly max = 10_000) {}
  has(taskId: string): boolean {
    return this.#ids.has(taskId);
  }
  add(taskId: string) {
    this.#ids.add(taskId);
    if (this.#ids.size > this.max) this.#ids.delete(this.#ids.values().next().value!);
  }
}

/** The events after which a task is no longer `active`: the settler has nothing more to do with it. */
const LEFT_ACTIVE = new Set<string>([LedgerEvent.taskCancelRequested, LedgerEvent.taskCancelled, LedgerEvent.taskCompleted, LedgerEvent.taskFailed]);

/**
 * The demo agent ends its turns (every task it made for a chat message — they carry a turn id) when their work
 * has settled: every child has ended, and a proposal — if there is one — was confirmed (the person may still be
 * deciding otherwise: the turn then stays open). A failure of what the person asked for fails the task, with the
 * reason; otherwise it completes. A completed task shows as completed everywhere, and Stop on it answers that
 * nothing is running (cancellation/steps/1-record-boundary.ts).
 */
export async function settleTurn(database: Database, taskId: string, known?: NothingToSettle): Promise<TaskEnding | null> {
  // The task alone first: most tasks are not turns (an SDK's, an API client's), and reading every child of a large
  // task whenever one of them ends made the settler the worker's largest cost (bench:pg part A).
  const head = await database.prisma.task.findUnique({
    where: { id: taskId },
    select: { turnId: true, stage: true, cancelRequestedAt: true, proposal: true, proposalVersion: true },
  });
  if (head && (head.turnId === null || head.stage !== TaskStage.active || head.cancelRequestedAt)) known?.add(taskId);
  if (!head || head.turnId === null || head.stage !== TaskStage.active || head.cancelRequestedAt) return null;
  const task = {
    ...head,
    workItems: await database.prisma.workItem.findMany({
      where: { taskId },
      select: {
        kind: true,
        toolName: true,
        status: true,
        error: true,
        commitsEffect: true,
        proposalVersion: true,
        stopIncidentId: true,
        stopRequestedAt: true,
      },
      orderBy: { createdAt: "asc" },
    }),
  };
  // A kill switch stopped part of this person's request: the request is cut short — a Stop by the incident, with
  // its opener and reason, like any Stop (a summary, "stopped" in the console and the audit), never "completed".
  const cut = task.workItems.filter((i) => i.stopIncidentId !== null).sort((a, b) => +a.stopRequestedAt! - +b.stopRequestedAt!)[0];
  if (cut) {
    await stopByIncident(database, taskId, cut.stopIncidentId!);
    return null;
  }
  if (task.workItems.some((i) => isActiveItem(i.status))) return null;
  // A turn is over only once everything it schedules is scheduled: its children are scheduled one by one, and a
  // quick one can end before the next exists. The reply is scheduled last in preparation (conversation.ts), and
  // a confirmation is recorded after its commitments: until then the turn is still being prepared or confirmed.
  if (!task.workItems.some((i) => i.kind === WorkItemKind.modelRequest)) return null;
  if (task.proposal !== null) {
    const confirmed = await database.prisma.ledgerEvent.findMany({ where: { taskId, type: LedgerEvent.agentProposalConfirmed }, select: { data: true } });
    // still waiting for the person's confirmation of the current version (or for its commitments to be scheduled)
    if (!confirmed.some((e) => (e.data as { version?: number } | null)?.version === task.proposalVersion)) return null;
  }
  // Commitments carry out the proposal version the person confirmed; older versions' (refused by their
  // checkpoint after an edit) are not what was asked for.
  const current = task.workItems.filter((i) => !i.commitsEffect || i.proposalVersion === task.proposalVersion);
  // The rest of the reply failing to stream is not a failure of the request; any other failed step is.
  const failed = current.find((i) => i.status === WorkItemStatus.failed && i.kind !== WorkItemKind.modelRequest);
  const ending = failed ? TaskEnding.failed : TaskEnding.completed;
  try {
    await finishTask(database, {
      taskId,
      ending,
      actor: AGENT_ACTOR,
      reason: failed ? `${failed.toolName} failed: ${failed.error ?? "no reason given"}` : "every step of the request ended",
    });
    return ending;
  } catch (error) {
    // A Stop, a new child or another settler got there first: the ledger's answer stands.
    if (isAppError(error)) return null;
    throw error;
  }
}

/** Records the Stop of a turn by the incident that stopped part of it (scope incident; its opener; its reason). */
async function stopByIncident(database: Database, taskId: string, incidentId: string): Promise<void> {
  const incident = await database.prisma.incident.findUnique({ where: { id: incidentId } });
  if (!incident) return;
  await requestCancellation(database, {
    taskId,
    reason: `incident: ${incident.reason}`,
    actor: incident.openedBy,
    actorId: incident.openedById,
    scope: StopScope.incident,
    scopeRef: incident.id,
  }).catch((error) => {
    // the task ended or was stopped meanwhile: the ledger's answer stands
    if (!isAppError(error)) throw error;
  });
}

/**
 * Runs settleTurn when a child of a turn ends (in-process and — through the live view — other processes'
 * commits), and sweeps now and then for turns a restart left open. Returns a stop function.
 */
export function startTurnSettler(database: Database, options: { sweepMs?: number } = {}): () => Promise<void> {
  const due = new Set<string>();
  const known = new NothingToSettle();
  let running: Promise<void> = Promise.resolve();
  // (not on work_item.stop_requested: a kill switch stopping 30 children woke every process's settler 30 times at the
  // moment the workers needed the embedded database most — kill-switch.int saw writes wait past 5 s; the stopped
  // child's work_item.finished comes a moment later and settles the turn as cut short by the incident)
  const ENDINGS = new Set<string>([
    LedgerEvent.workItemFinished,
    LedgerEvent.workItemReconciled,
    LedgerEvent.leaseExpired,
    LedgerEvent.workItemRemovedFromDispatch,
    LedgerEvent.agentProposalConfirmed,
  ]);
  const drain = () => {
    running = running.then(async () => {
      for (const id of [...due]) {
        due.delete(id);
        if (known.has(id)) continue;
        await settleTurn(database, id, known).catch((error) => console.error(`the demo agent could not settle task ${id}`, error));
      }
    });
  };
  const unsubscribe = onCommitted((events) => {
    const size = due.size;
    for (const e of events) {
      if (!e.taskId) continue;
      // A Stop's children end in bursts right after its boundary: the boundary's own event says there is nothing to
      // settle, so the stopped task is not read once for each burst (a read per Stop in bench:pg part D).
      if (LEFT_ACTIVE.has(e.type)) {
        known.add(e.taskId);
        due.delete(e.taskId);
      } else if (ENDINGS.has(e.type) && !known.has(e.taskId)) due.add(e.taskId);
    }
    if (due.size > size) drain();
  });
  const sweep = async () => {
    const open = await database.prisma.task
      .findMany({
        where: { stage: TaskStage.active, turnId: { not: null }, cancelRequestedAt: null, workItems: { none: { status: { in: ACTIVE_ITEM_STATUSES } } } },
        select: { id: true },
        take: 50,
      })
      .catch(() => []);
    for (const t of open) due.add(t.id);
    if (open.length) drain();
  };
  const timer = setInterval(() => void sweep(), options.sweepMs ?? 5_000);
  void sweep();
  return async () => {
    unsubscribe();
    clearInterval(timer);
    await running;
  };
}
