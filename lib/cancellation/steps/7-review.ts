import type { Database } from "../../db/client";
import type { RiskLevel } from "../../ledger/states";
import { isTerminalItem, ReviewItemKind, ReviewItemStatus, SideEffectOutcome } from "../../ledger/states";
import type { ToolRegistry } from "../../tools/registry";
import { writeLedger, type Writer } from "../../ledger/write";
import { ENGINE_ACTOR } from "../step-log";
import { LedgerEvent } from "../../ledger/events";

/** Review deadlines by risk (configurable): past it, an open item escalates. */
export function reviewDeadlineMs(risk: string): number {
  const high = Number(process.env.STOPLINE_REVIEW_DEADLINE_HIGH_MS ?? 15 * 60_000);
  const low = Number(process.env.STOPLINE_REVIEW_DEADLINE_LOW_MS ?? 4 * 60 * 60_000);
  return risk === "high" ? high : low;
}

/** One review item per question: the task, the kind, and what it is about (work item, side effect, resource). */
export const reviewDedupeKey = (input: {
  taskId: string;
  kind: string;
  workItemId?: string | null;
  sideEffectId?: string | null;
  resourceId?: string | null;
}) => [input.taskId, input.kind, input.workItemId ?? "", input.sideEffectId ?? "", input.resourceId ?? ""].join(":");

/**
 * Opens a review item unless one of the same kind already exists for the same subject (a re-run of the
 * engine after a restart, or a second engine run at the same time, must not ask the person twice): the
 * unique `dedupeKey` decides, and the loser gets the winner's item.
 */
export async function openReviewItem(
  database: Database,
  input: {
    taskId: string;
    kind: ReviewItemKind;
    subject: string;
    risk: RiskLevel | string;
    workItemId?: string | null;
    sideEffectId?: string | null;
    resourceId?: string | null;
    proposal?: unknown;
    requestedBy?: string;
  },
) {
  const dedupeKey = reviewDedupeKey(input);
  const existing = () =>
    database.prisma.reviewItem.findFirst({
      where: {
        OR: [
          { dedupeKey },
          {
            taskId: input.taskId,
            kind: input.kind,
            workItemId: input.workItemId ?? null,
            sideEffectId: input.sideEffectId ?? null,
            resourceId: input.resourceId ?? null,
          },
        ],
      },
    });
  const found = await existing();
  if (found) return found;
  try {
    return await writeLedger(database, (w) => insertReviewItem(w, input, dedupeKey));
  } catch (error) {
    // A concurrent run opened the same item first (unique dedupeKey): that one stands.
    if ((error as { code?: string })?.code === "P2002") return existing();
    throw error;
  }
}

/** Opens a review item inside a ledger transaction that also records why (its dedupe key still decides). */
export const openReviewItemIn = (w: Writer, input: Parameters<typeof openReviewItem>[1]) => insertReviewItem(w, input, reviewDedupeKey(input));

async function insertReviewItem(w: Writer, input: Parameters<typeof openReviewItem>[1], dedupeKey: string) {
  if (input.kind === ReviewItemKind.resolveUncertain && input.workItemId) {
    // Asked only while the outcome is still unknown: reconciliation may have established it meanwhile. The
    // item's row is locked for this check (a concurrent settlement waits, or is seen here); one that lands
    // after the insert is closed by resolveAnsweredUncertainties.
    if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "WorkItem" WHERE "id" = $1 FOR SHARE`, input.workItemId);
    const item = await w.tx.workItem.findUnique({ where: { id: input.workItemId }, select: { status: true } });
    if (item && isTerminalItem(item.status)) return null;
  }
  const now = await w.now();
  const item = await w.tx.reviewItem.create({
    data: {
      dedupeKey,
      taskId: input.taskId,
      kind: input.kind,
      subject: input.subject,
      status: ReviewItemStatus.open,
      workItemId: input.workItemId ?? null,
      sideEffectId: input.sideEffectId ?? null,
      resourceId: input.resourceId ?? null,
      proposal: (input.proposal ?? undefined) as never,
      requestedBy: input.requestedBy ?? ENGINE_ACTOR,
      deadline: new Date(now.getTime() + reviewDeadlineMs(input.risk)),
    },
  });
  await w.event({
    taskId: input.taskId,
    workItemId: input.workItemId ?? null,
    entityType: "reviewItem",
    entityId: item.id,
    actor: input.requestedBy ?? ENGINE_ACTOR,
    type: LedgerEvent.reviewItemOpened,
    toState: item.status,
    reason: input.subject,
    data: { kind: input.kind, deadline: item.deadline.toISOString(), risk: input.risk },
  });
  return item;
}

/** Completed effects: a reversible one gets a proposed compensation for a person; an irreversible one is reported. */
export async function openReviewsForEffects(database: Database, taskId: string, risk: string, registry: ToolRegistry, only?: { workItemIds: string[] }) {
  const effects = await database.prisma.sideEffect.findMany({
    where: { taskId, outcome: SideEffectOutcome.committed, workItem: { commitsEffect: true }, ...(only ? { workItemId: { in: only.workItemIds } } : {}) },
    include: { workItem: true },
  });
  for (const e of effects) {
    const tool = registry.get(e.workItem.toolName);
    const what = registry.describeEffect(e.workItem.toolName, e);
    if (e.reversible && tool?.compensate) {
      await openReviewItem(database, {
        taskId,
        sideEffectId: e.id,
        workItemId: e.workItemId,
        kind: ReviewItemKind.approveCompensation,
        risk: tool.risk === "high" ? "high" : risk,
        subject: `Completed before the Stop took effect: ${what}. Approve compensation?`,
        proposal: {
          action: "compensate",
          tool: e.workItem.toolName,
          operationId: e.operationId,
          target: e.externalRecordId,
          expectedVersion: e.externalVersion,
          description: what,
        },
      });
    } else {
      await openReviewItem(database, {
        taskId,
        sideEffectId: e.id,
        workItemId: e.workItemId,
        kind: ReviewItemKind.orphanedSideEffect,
        risk: tool?.risk === "high" ? "high" : risk,
        subject: `Cannot be reversed: ${what}`,
      });
    }
  }
}
