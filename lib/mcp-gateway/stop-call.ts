import { answerWithin, NoAnswerError, SERVICE_ANSWER_MS } from "../cancellation/step-log";
import { openReviewItem } from "../cancellation/steps/7-review";
import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { isTerminalItem, ReviewItemKind, WorkItemStatus } from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import { reconcileSideEffects } from "../ledger/reconcile-side-effects";
import type { CallRef, InspectOutcome, ToolDefinition } from "../tools/contract";
import { LedgerEvent } from "../ledger/events";

/**
 * A Stop of ONE call (not of its task): the MCP client's own cancel of a tools/call (`notifications/cancelled`,
 * or on 2026-07-28 HTTP the closed response stream), and `McpGateway.stopCalls`. The task-level Stop (console, API)
 * and an incident's kill switch (a scoped Stop of each call, lib/incidents) go through the cancellation engine instead.
 *
 * 1. `requestCallStop` records the request on the item — running/submitted → cancelling, with its event, in one
 *    transaction — before anything is sent. The in-process runner sees that event and fires the call's
 *    AbortSignal; the MCP adapter then cancels downstream the way the server's protocol says.
 * 2. `settleStoppedCall` asks the tool's inspect() (what the server answered, or tasks/get) and records only what
 *    it learns: a result → completed (it happened anyway), an error or a cancelled task → cancelled, anything
 *    else → uncertain with the reason ("cancellation sent but not confirmed") and a review item.
 */
export const GATEWAY_ACTOR = "system:mcp-gateway";

export async function requestCallStop(database: Database, input: { workItemId: string; actor: string; reason: string }): Promise<WorkItem | null> {
  return writeLedger(database, async (w) => {
    await w.lockRow("workItem", input.workItemId);
    const item = await w.tx.workItem.findUnique({ where: { id: input.workItemId } });
    if (!item || isTerminalItem(item.status) || item.status === WorkItemStatus.cancelling || item.status === WorkItemStatus.uncertain)
      return (item as WorkItem | null) ?? null;
    if (item.status !== WorkItemStatus.running && item.status !== WorkItemStatus.submitted) return item as WorkItem;
    const moved = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: item.status,
      to: WorkItemStatus.cancelling,
      event: {
        taskId: item.taskId,
        workItemId: item.id,
        actor: input.actor,
        type: LedgerEvent.workItemCancelling,
        reason: input.reason,
        data: { scope: "call" },
      },
    });
    return (moved as unknown as WorkItem) ?? null;
  });
}

/**
 * How long one inspect() of a stopped call may take before its outcome reads unknown: the adapter's own wait for the
 * server's answer after the cancel (confirmGraceMs) and then SERVICE_ANSWER_MS more. A server that never answers
 * (tasks/get hangs) must not hold the call `cancelling` — and the client's request — for the SDK's request timeout.
 */
export const inspectBoundMs = (confirmGraceMs = 2_000) => confirmGraceMs + SERVICE_ANSWER_MS;

export async function settleStoppedCall(
  database: Database,
  tool: ToolDefinition,
  workItemId: string,
  options: { attempts?: number; waitMs?: number /** Each inspect()'s bound (default inspectBoundMs()). */; inspectWithinMs?: number } = {},
): Promise<string> {
  const attempts = options.attempts ?? 5;
  const within = options.inspectWithinMs ?? inspectBoundMs();
  let outcome: InspectOutcome = { status: "unknown", reason: "not asked" };
  for (let i = 0; i < attempts; i++) {
    const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId } });
    if (isTerminalItem(item.status)) return item.status;
    const ref: CallRef = {
      workItemId: item.id,
      taskId: item.taskId,
      toolCallId: item.correlationId,
      idempotencyKey: item.idempotencyKey,
      operationId: item.operationId,
      providerRef: item.providerRef,
      input: item.input,
    };
    if (!tool.inspect) outcome = { status: "unknown", reason: `${tool.name} has no inspect()` };
    else {
      const inspect = tool.inspect;
      const asked = await answerWithin(() => inspect(ref), within);
      outcome = asked.ok
        ? asked.value
        : {
            status: "unknown",
            reason:
              asked.error instanceof NoAnswerError
                ? `the server gave no answer about the call within ${within} ms (cancel sent, not confirmed)`
                : `inspect failed: ${asked.error.message}`,
          };
    }
    if (outcome.status !== "running") break;
    await new Promise((r) => setTimeout(r, options.waitMs ?? 200));
  }
  return writeLedger(database, async (w) => {
    await w.lockRow("workItem", workItemId);
    const item = await w.tx.workItem.findUniqueOrThrow({ where: { id: workItemId } });
    if (isTerminalItem(item.status)) return item.status;
    const now = await w.now();
    if (outcome.status === "committed" || outcome.status === "not_committed") {
      const committed = outcome.status === "committed";
      const to = committed ? WorkItemStatus.completed : WorkItemStatus.cancelled;
      await casUpdate(w, {
        entity: "workItem",
        id: item.id,
        from: item.status,
        to,
        data: {
          finishedAt: now,
          leaseToken: null,
          leaseOwner: null,
          leaseExpiresAt: null,
          ...(committed ? { result: ((outcome as { result?: unknown }).result ?? null) as never } : {}),
        },
        event: {
          taskId: item.taskId,
          workItemId: item.id,
          actor: GATEWAY_ACTOR,
          type: LedgerEvent.workItemReconciled,
          reason: committed ? "the server says the call took effect after the cancellation: it completed" : "the server says the call did not take effect",
        },
      });
      // What the server said the call produced (its inspect's record id and version) is the effect's, as the engine records it.
      await reconcileSideEffects(w, item, outcome, GATEWAY_ACTOR);
      return to;
    }
    const reason = outcome.status === "running" ? "cancellation sent but not confirmed: the server still reports the call running" : outcome.reason;
    if (item.status !== WorkItemStatus.uncertain) {
      await casUpdate(w, {
        entity: "workItem",
        id: item.id,
        from: item.status,
        to: WorkItemStatus.uncertain,
        data: { leaseToken: null, leaseOwner: null, leaseExpiresAt: null, reconcileDeadline: new Date(now.getTime() + 15 * 60_000) },
        event: { taskId: item.taskId, workItemId: item.id, actor: GATEWAY_ACTOR, type: LedgerEvent.workItemUncertain, reason },
      });
    } else {
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: GATEWAY_ACTOR,
        type: LedgerEvent.cancellationStep,
        reason,
        data: { action: "reconcile", success: false },
      });
    }
    return WorkItemStatus.uncertain;
  }).then(async (to) => {
    if (to === WorkItemStatus.uncertain) {
      const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId } });
      await openReviewItem(database, {
        taskId: item.taskId,
        workItemId: item.id,
        kind: ReviewItemKind.resolveUncertain,
        risk: tool.risk,
        subject: `The outcome of ${item.toolName} (${item.correlationId}) is not known: ${outcome.status === "unknown" ? outcome.reason : "cancellation sent but not confirmed"}`,
      });
    }
    return to;
  });
}
