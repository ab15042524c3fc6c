import type { Database } from "../db/client";
import type { AppError } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { ReviewItemStatus, SideEffectOutcome, WorkItemStatus } from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import { openReviewsForEffects } from "../cancellation/steps/7-review";
import type { ToolRegistry } from "../tools/registry";
import { Finding } from "./decision-words";

interface UncertainItem {
  id: string;
  taskId: string;
  workItemId: string | null;
  status: string;
  decidedBy: string | null;
  decidedAt: Date | null;
  resolution: string | null;
}

/**
 * A person resolves an uncertain outcome by saying what happened, with evidence. In one transaction: the review
 * item is resolved (its event carries the finding), and — for "took effect" / "did not take effect" — the child's
 * effect of unknown outcome is settled (unknown → committed / not_committed) and the child leaves `uncertain`
 * (→ completed; → cancelled after a Stop, failed without one). The summary, the chat and the console then read the
 * new facts through the one vocabulary; the person's message says an operator established it (personFindings).
 * "Cannot tell" changes no effect: the outcome stays reported as unknown, now with nobody left to ask.
 *
 * Every write is a compare-and-set on what was read; if another decision won, nothing is written and the caller's
 * `alreadyDecided` sentence says whose. After "took effect", a reversible effect gets its proposed compensation
 * like any effect found after a Stop (openReviewsForEffects — idempotent, one item per question).
 */
export async function resolveUncertain(
  database: Database,
  registry: ToolRegistry,
  input: { item: UncertainItem; actor: string; finding: Finding; reason: string; evidence: string | null },
  alreadyDecided: (item: UncertainItem) => AppError,
): Promise<{ status: string }> {
  const { item, actor, finding } = input;
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId }, select: { cancelRequestedAt: true, riskLevel: true } });
  const child = item.workItemId ? await database.prisma.workItem.findUnique({ where: { id: item.workItemId }, include: { sideEffects: true } }) : null;
  const unknownEffects = child?.sideEffects.filter((e) => e.outcome === SideEffectOutcome.unknown) ?? [];
  const why = `${input.reason}${input.evidence ? ` — evidence: ${input.evidence}` : ""}`;

  const moved = await writeLedger(database, async (w) => {
    const resolved = await casUpdate(w, {
      entity: "reviewItem",
      id: item.id,
      from: item.status,
      to: ReviewItemStatus.resolved,
      data: { decidedBy: actor, decidedAt: await w.now(), resolution: why },
      event: {
        taskId: item.taskId,
        workItemId: item.workItemId,
        actor,
        type: LedgerEvent.reviewItemResolved,
        reason: input.reason,
        data: { decision: "resolve", evidence: input.evidence, finding },
      },
    });
    if (!resolved || finding === Finding.cannotTell || !child) return resolved;
    const effectTo = finding === Finding.tookEffect ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted;
    for (const effect of unknownEffects) {
      await casUpdate(w, {
        entity: "sideEffect",
        id: effect.id,
        from: SideEffectOutcome.unknown,
        to: effectTo,
        event: {
          taskId: item.taskId,
          workItemId: child.id,
          actor,
          type: LedgerEvent.sideEffectReconciled,
          reason: `a person established it ${finding === Finding.tookEffect ? "took effect" : "did not take effect"}: ${why}`,
        },
      });
    }
    if (child.status === WorkItemStatus.uncertain) {
      const to = finding === Finding.tookEffect ? WorkItemStatus.completed : task.cancelRequestedAt ? WorkItemStatus.cancelled : WorkItemStatus.failed;
      await casUpdate(w, {
        entity: "workItem",
        id: child.id,
        from: WorkItemStatus.uncertain,
        to,
        guard: { leaseToken: null },
        data: { finishedAt: await w.now(), reconcileDeadline: null },
        event: { taskId: item.taskId, workItemId: child.id, actor, type: LedgerEvent.workItemReconciled, reason: `a person established what happened: ${why}` },
      });
    }
    return resolved;
  });
  if (!moved) {
    const now = await database.prisma.reviewItem.findUniqueOrThrow({ where: { id: item.id } });
    throw alreadyDecided(now);
  }
  if (finding === Finding.tookEffect && task.cancelRequestedAt) await openReviewsForEffects(database, item.taskId, task.riskLevel, registry);
  return { status: ReviewItemStatus.resolved };
}
