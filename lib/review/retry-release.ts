import { actorOf, type Principal } from "../auth/tokens";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { isOpenReview, ResourceState, ReviewItemKind, ReviewItemStatus } from "../ledger/states";
import { recordVerification } from "../ledger/resources";
import { casUpdate, writeLedger } from "../ledger/write";
import { answerWithin, logStep, SERVICE_ANSWER_MS } from "../cancellation/step-log";
import type { ToolRegistry } from "../tools/registry";
import { alreadyDecidedSentence } from "./decision-words";

export interface RetryReleaseResult {
  released: boolean;
  /** The review item's status afterwards: resolved when the resource was verified released. */
  status: string;
  detail: string;
}

/**
 * "Retry release" on an orphaned resource: run the tool's cleanup again, wait, and verify with a re-query
 * (invariant 4: released only once verified). Each step is recorded as a cancellation step with who asked. If the
 * re-query confirms it, the resource moves orphaned → released and the review item is resolved, in one transaction
 * each; if not, the item stays open (its deadline unchanged) and the person can retry or mark it handled.
 */
export async function retryRelease(
  database: Database,
  registry: ToolRegistry,
  principal: Principal,
  reviewItemId: string,
  options: { verifyDelayMs?: number } = {},
): Promise<RetryReleaseResult> {
  const actor = actorOf(principal);
  const item = await database.prisma.reviewItem.findUnique({
    where: { id: reviewItemId },
    include: { resource: { include: { workItem: { select: { toolName: true } } } } },
  });
  if (!item) throw new AppError(ErrorCode.notFound, `review item ${reviewItemId} not found`, { reviewItemId });
  if (item.kind !== ReviewItemKind.orphanedResource || !item.resource)
    throw new AppError(ErrorCode.badRequest, "only an orphaned resource can be released again", { field: "id" });
  if (!isOpenReview(item.status)) throw new AppError(ErrorCode.conflict, alreadyDecidedSentence(item), { currentState: item.status });
  const r = item.resource;
  const tool = registry.get(r.workItem.toolName);
  if (!tool?.cleanup || !tool.verifyReleased) {
    throw new AppError(
      ErrorCode.unavailable,
      `${r.workItem.toolName} declares no way to release or verify ${r.type} here: release it by hand, then mark it handled`,
      { tool: r.workItem.toolName },
    );
  }
  const ref = { id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle };
  const attempt = r.attempts + 1;
  let cleanupError: string | null = null;
  // Each call bounded (a person waits on this request): a service that hangs reads as one that failed.
  const cleaned = await answerWithin(() => tool.cleanup!(ref), SERVICE_ANSWER_MS);
  if (!cleaned.ok) cleanupError = cleaned.error.message;
  await logStep(database, {
    taskId: item.taskId,
    workItemId: r.workItemId,
    action: "cleanup",
    success: cleanupError === null,
    detail: `${r.type} ${r.handle}, retried by ${actor}${cleanupError ? `: ${cleanupError}` : ""}`,
    data: { requestedBy: actor, attempt },
  });
  await new Promise((resolve) => setTimeout(resolve, options.verifyDelayMs ?? Number(process.env.STOPLINE_VERIFY_DELAY_MS ?? 2_000)));
  let released = false;
  let verifyError: string | null = null;
  const verified = await answerWithin(() => tool.verifyReleased!(ref), SERVICE_ANSWER_MS);
  if (verified.ok) released = verified.value === true;
  else verifyError = verified.error.message;
  await logStep(database, {
    taskId: item.taskId,
    workItemId: r.workItemId,
    action: "verify_release",
    success: released,
    detail: `${r.type} ${r.handle}, retried by ${actor}: ${released ? "released" : verifyError ? `could not check: ${verifyError}` : "still held"}`,
    data: { requestedBy: actor, attempt },
  });
  if (!released) {
    return {
      released: false,
      status: item.status,
      detail: `${r.type} ${r.handle} is still held after the retry${cleanupError ? ` (cleanup: ${cleanupError})` : ""}; release it by hand, then mark it handled`,
    };
  }
  if (r.state !== ResourceState.released)
    await recordVerification(database, {
      resourceId: r.id,
      to: ResourceState.released,
      actor,
      reason: `verified released by a re-query after a retry requested by ${actor}`,
      attempt,
    });
  const moved = await writeLedger(database, async (w) =>
    casUpdate(w, {
      entity: "reviewItem",
      id: item.id,
      from: item.status,
      to: ReviewItemStatus.resolved,
      data: { decidedBy: actor, decidedAt: await w.now(), resolution: `released on retry: ${r.type} ${r.handle} verified released` },
      event: {
        taskId: item.taskId,
        workItemId: item.workItemId,
        actor,
        type: LedgerEvent.reviewItemResolved,
        reason: "released on retry and verified",
        data: { decision: "retry_release", evidence: null },
      },
    }),
  );
  if (!moved) {
    const now = await database.prisma.reviewItem.findUniqueOrThrow({ where: { id: item.id } });
    return { released: true, status: now.status, detail: `${r.type} ${r.handle} is released (verified). ${alreadyDecidedSentence(now)}` };
  }
  return { released: true, status: ReviewItemStatus.resolved, detail: `${r.type} ${r.handle} is released (verified by a re-query)` };
}
