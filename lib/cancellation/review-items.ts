import type { Database } from "../db/client";
import type { RiskLevel } from "../ledger/states";
import { isTerminalItem, ReviewItemKind, ReviewItemStatus } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { ENGINE_ACTOR } from "./steps";

/** Review deadlines by risk (configurable): past it, an open item escalates. */
export function reviewDeadlineMs(risk: string): number {
  const high = Number(process.env.STOPLINE_REVIEW_DEADLINE_HIGH_MS ?? 15 * 60_000);
  const low = Number(process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS ?? 4 * 60 * 60_000);
  return risk === "high" ? high : low;
}

/**
 * Opens a review item unless an open one of the same kind already exists for the same subject (a re-run
 * of the engine after a restart must not ask the person twice).
 */
export async function openReviewItem(
  database: Database,
  input: {
    taskId: string; kind: ReviewItemKind; subject: string; risk: RiskLevel | string;
    workItemId?: string | null; sideEffectId?: string | null; resourceId?: string | null; proposal?: unknown; requestedBy?: string;
  },
) {
  return writeLedger(database, async (w) => {
    const existing = await w.tx.reviewItem.findFirst({
      where: { taskId: input.taskId, kind: input.kind, workItemId: input.workItemId ?? null, sideEffectId: input.sideEffectId ?? null, resourceId: input.resourceId ?? null },
    });
    if (existing) return existing;
    if (input.kind === ReviewItemKind.resolveUncertain && input.workItemId) {
      // Asked only while the outcome is still unknown: reconciliation may have established it meanwhile
      // (ledger writes are serialised, so this check and the insert are atomic against it).
      const item = await w.tx.workItem.findUnique({ where: { id: input.workItemId }, select: { status: true } });
      if (item && isTerminalItem(item.status)) return null;
    }
    const now = await w.now();
    const item = await w.tx.reviewItem.create({
      data: {
        taskId: input.taskId, kind: input.kind, subject: input.subject, status: ReviewItemStatus.open,
        workItemId: input.workItemId ?? null, sideEffectId: input.sideEffectId ?? null, resourceId: input.resourceId ?? null,
        proposal: (input.proposal ?? undefined) as never, requestedBy: input.requestedBy ?? ENGINE_ACTOR,
        deadline: new Date(now.getTime() + reviewDeadlineMs(input.risk)),
      },
    });
    await w.event({
      taskId: input.taskId, workItemId: input.workItemId ?? null, entityType: "reviewItem", entityId: item.id, actor: input.requestedBy ?? ENGINE_ACTOR,
      type: "review_item.opened", toState: item.status, reason: input.subject, data: { kind: input.kind, deadline: item.deadline.toISOString(), risk: input.risk },
    });
    return item;
  });
}
