import type { Database } from "../db/client";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, ResourceIntentState, ResourceState, TERMINAL_ITEM_STATUSES, WorkItemStatus } from "./states";
import { casUpdate, writeLedger, type Writer } from "./write";
import { LedgerEvent } from "./events";

/**
 * Written ahead (issue 19, docs/ARCHITECTURE.md "Written ahead"). Whatever a call may hold outside — a lock, a temp
 * file, a draft — is in the ledger BEFORE the call's request leaves: one intent per resource kind the tool declares
 * (`ToolDefinition.resources`), keyed by the call's idempotency key (the key its service knows the call by). Then:
 *  - the answer names the handle: `holdResource` binds the intent to the concrete Resource (resources.ts);
 *  - the call returned its answer without one: the intent is `not_held` (settleIntentsAfterAnswer);
 *  - the answer never arrived (a Stop's AbortSignal cut the request the service had received, a lost response, a
 *    dead worker): the verification gate asks the service — `inspect()` reports what the call holds
 *    (lib/cancellation/resolve-intents.ts) — and binds, finds nothing held, or (the service cannot say) records an
 *    orphaned resource for a person.
 * Without the intent, a lock taken by a start request whose answer was lost existed only at the service: the ledger
 * had nothing to clean up, and the summary said CANCELLED with no orphaned resource.
 */

/** Records the intents of a call before its tool runs. Lease-guarded; safe to repeat (one intent per kind). */
export async function recordResourceIntents(database: Database, input: LeaseHolder & { types: readonly string[]; actor: string }) {
  if (!input.types.length) return [];
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      return rejectStaleLease(w, item, input.leaseToken, "record resource intents", input.actor, { types: [...input.types] });
    }
    const intents = [];
    for (const type of new Set(input.types)) {
      const existing = await w.tx.resourceIntent.findUnique({ where: { workItemId_type: { workItemId: item.id, type } } });
      if (existing) {
        intents.push(existing);
        continue;
      }
      const intent = await w.tx.resourceIntent.create({
        data: { taskId: item.taskId, workItemId: item.id, type, key: item.idempotencyKey, state: ResourceIntentState.open },
      });
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "resourceIntent",
        entityId: intent.id,
        actor: input.actor,
        type: LedgerEvent.resourceIntended,
        toState: intent.state,
        reason: `this call may hold a ${type}: written ahead, before its request leaves`,
        data: { type, key: item.idempotencyKey },
      });
      intents.push(intent);
    }
    return intents;
  });
}

/**
 * Inside a ledger transaction: the open intent of this kind (if any) becomes the concrete resource. Called by
 * holdResource (the answer named it) and by the gate (the service, asked, says the call holds it).
 */
export async function bindIntentIn(
  w: Writer,
  input: { workItemId: string; taskId: string; type: string; handle: string; resourceId: string; actor: string; by: "answer" | "inspect" },
) {
  const intent = await w.tx.resourceIntent.findUnique({ where: { workItemId_type: { workItemId: input.workItemId, type: input.type } } });
  if (!intent || intent.state !== ResourceIntentState.open) return null;
  return casUpdate(w, {
    entity: "resourceIntent",
    id: intent.id,
    from: intent.state,
    to: ResourceIntentState.bound,
    data: { resourceId: input.resourceId },
    event: {
      taskId: input.taskId,
      workItemId: input.workItemId,
      actor: input.actor,
      type: LedgerEvent.resourceIntentBound,
      reason: input.by === "answer" ? "the call's answer named it" : "the service, asked, says the call holds it",
      data: { type: input.type, handle: input.handle, resourceId: input.resourceId, by: input.by },
    },
  });
}

/** Inside a ledger transaction: the open intent is settled as nothing held (the answer named none, or the service says so). */
export async function intentNotHeldIn(
  w: Writer,
  intent: { id: string; taskId: string; workItemId: string; type: string; state: string },
  input: { actor: string; reason: string; by: "answer" | "inspect" },
) {
  if (intent.state !== ResourceIntentState.open) return null;
  return casUpdate(w, {
    entity: "resourceIntent",
    id: intent.id,
    from: intent.state,
    to: ResourceIntentState.notHeld,
    data: { reason: input.reason },
    event: {
      taskId: intent.taskId,
      workItemId: intent.workItemId,
      actor: input.actor,
      type: LedgerEvent.resourceIntentNotHeld,
      reason: input.reason,
      data: { type: intent.type, by: input.by },
    },
  });
}

/**
 * The call returned its answer (its tool's run() ended normally): every resource it took was named by then, so an
 * intent still open holds nothing. Lease-guarded: a worker whose lease moved on settles nothing.
 */
export async function settleIntentsAfterAnswer(database: Database, input: LeaseHolder & { actor: string }) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken) return 0;
    const open = await w.tx.resourceIntent.findMany({ where: { workItemId: item.id, state: ResourceIntentState.open } });
    for (const intent of open)
      await intentNotHeldIn(w, intent, { actor: input.actor, reason: "the call returned its answer without naming one", by: "answer" });
    return open.length;
  });
}

/**
 * Inside a ledger transaction: a resource the service says the call holds, recorded held (the gate then releases and
 * verifies it like any other); returns the existing row when the ledger already has it.
 */
export async function recordHeldIn(w: Writer, input: { taskId: string; workItemId: string; type: string; handle: string; actor: string; reason: string }) {
  const existing = await w.tx.resource.findUnique({
    where: { workItemId_type_handle: { workItemId: input.workItemId, type: input.type, handle: input.handle } },
  });
  if (existing) return existing;
  const resource = await w.tx.resource.create({
    data: { taskId: input.taskId, workItemId: input.workItemId, type: input.type, handle: input.handle, state: ResourceState.held },
  });
  await w.event({
    taskId: input.taskId,
    workItemId: input.workItemId,
    entityType: "resource",
    entityId: resource.id,
    actor: input.actor,
    type: LedgerEvent.resourceHeld,
    toState: resource.state,
    reason: input.reason,
    data: { type: input.type, handle: input.handle },
  });
  return resource;
}

/** Open intents whose call can no longer name them itself: its child ended, or is uncertain with its worker gone. */
export const intentsAwaitingResolution = (scope: { taskId?: string; workItemIds?: string[] }) => ({
  ...(scope.taskId ? { taskId: scope.taskId } : {}),
  ...(scope.workItemIds ? { workItemId: { in: scope.workItemIds } } : {}),
  state: ResourceIntentState.open,
  workItem: { OR: [{ status: { in: [...TERMINAL_ITEM_STATUSES] } }, { status: WorkItemStatus.uncertain, leaseToken: null }] },
});
