import { actorOf, type Principal } from "../auth/tokens";
import { openReviewItem } from "../cancellation/steps/7-review";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { ReviewItemKind, SideEffectOutcome, TaskStage } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { utcFormat } from "../outcomes/words";
import type { ToolRegistry } from "../tools/registry";

export interface ReversalResult {
  taskId: string;
  reviewItems: Awaited<ReturnType<typeof openReviewItem>>[];
  irreversible: { sideEffectId: string; description: string }[];
  message: string;
}

/**
 * "Request reversal": undoing finished work is its own, explicit request — never a side effect of Stop (Stop on
 * a finished task changes nothing). Each reversible effect the task committed gets a proposed compensation
 * for a person, with the same rules as after a Stop (invariant 6): bound to the record and the version the
 * agent's own write produced, never approved by the person who asked for it (maker-checker,
 * decide-review-item.ts), refused as a conflict if someone else changed the record since. Effects nothing
 * can undo (an email sent) are named, not proposed. Asking again finds the same review items.
 */
export async function requestReversal(
  database: Database,
  registry: ToolRegistry,
  principal: Principal,
  input: { taskId: string; reason: string },
): Promise<ReversalResult> {
  const actor = actorOf(principal);
  const task = await database.prisma.task.findUnique({
    where: { id: input.taskId },
    include: { sideEffects: { where: { outcome: SideEffectOutcome.committed }, include: { workItem: true }, orderBy: { createdAt: "asc" } } },
  });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  if (task.stage === TaskStage.active) {
    throw new AppError(
      ErrorCode.conflict,
      "this request is still running: press Stop to stop it first (what already took effect then goes to review by itself)",
      { taskId: task.id, currentState: task.stage },
    );
  }
  const reviewItems: ReversalResult["reviewItems"] = [];
  const irreversible: ReversalResult["irreversible"] = [];
  for (const e of task.sideEffects) {
    const tool = registry.get(e.workItem.toolName);
    const what = registry.describeEffect(e.workItem.toolName, e);
    if (!e.reversible || !tool?.compensate) {
      irreversible.push({ sideEffectId: e.id, description: what });
      continue;
    }
    const item = await openReviewItem(database, {
      taskId: task.id,
      sideEffectId: e.id,
      workItemId: e.workItemId,
      kind: ReviewItemKind.approveCompensation,
      risk: tool.risk === "high" ? "high" : task.riskLevel,
      requestedBy: actor,
      subject: `Reversal requested by ${actor} (“${input.reason}”): ${what}. Approve compensation?`,
      proposal: {
        action: "compensate",
        tool: e.workItem.toolName,
        operationId: e.operationId,
        target: e.externalRecordId,
        expectedVersion: e.externalVersion,
        description: what,
      },
    });
    if (item) reviewItems.push(item);
  }
  await writeLedger(database, (w) =>
    w.event({
      taskId: task.id,
      entityType: "task",
      entityId: task.id,
      actor,
      type: LedgerEvent.reversalRequested,
      reason: input.reason,
      data: { reviewItems: reviewItems.map((r) => r!.id), irreversible: irreversible.map((i) => i.sideEffectId) },
    }),
  );
  return { taskId: task.id, reviewItems, irreversible, message: reversalMessage(reviewItems, irreversible) };
}

function reversalMessage(items: ReversalResult["reviewItems"], irreversible: ReversalResult["irreversible"]): string {
  const s: string[] = [];
  const open = items.filter((r): r is NonNullable<typeof r> => !!r);
  if (open.length) {
    const by = Math.min(...open.map((r) => r.deadline.getTime()));
    s.push(
      `Reversal requested: another person decides by ${utcFormat.time(by)} whether to reverse ${open.length === 1 ? "what this request did" : `the ${open.length} things this request did`}; nothing is undone before then.`,
    );
  }
  if (irreversible.length)
    s.push(
      `${irreversible.length === 1 ? "One effect cannot" : `${irreversible.length} effects cannot`} be undone: ${irreversible.map((i) => i.description).join("; ")}.`,
    );
  if (!s.length) s.push("Nothing to reverse: this request changed nothing outside Stopline.");
  return s.join(" ");
}
