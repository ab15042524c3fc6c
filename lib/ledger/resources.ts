import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, ResourceState } from "./states";
import { casUpdate, writeLedger } from "./write";
import { LedgerEvent } from "./events";
import { bindIntentIn } from "./resource-intents";

/** The running code took a resource (lock, temp file, session); it must be released and verified later. */
export async function holdResource(database: Database, input: LeaseHolder & { type: string; handle: string; actor: string }) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      return rejectStaleLease(w, item, input.leaseToken, "hold resource", input.actor, { type: input.type, handle: input.handle });
    }
    const existing = await w.tx.resource.findUnique({ where: { workItemId_type_handle: { workItemId: item.id, type: input.type, handle: input.handle } } });
    if (existing) return existing;
    const resource = await w.tx.resource.create({
      data: { taskId: item.taskId, workItemId: item.id, type: input.type, handle: input.handle, state: ResourceState.held },
    });
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "resource",
      entityId: resource.id,
      actor: input.actor,
      type: LedgerEvent.resourceHeld,
      toState: resource.state,
      data: { type: input.type, handle: input.handle },
    });
    // Written ahead (resource-intents.ts): the intent of this kind, recorded before the request left, is now this handle.
    await bindIntentIn(w, {
      workItemId: item.id,
      taskId: item.taskId,
      type: input.type,
      handle: input.handle,
      resourceId: resource.id,
      actor: input.actor,
      by: "answer",
    });
    return resource;
  });
}

/**
 * The running code says it released a resource. That is a claim, not a fact: the resource moves to
 * release_requested and is reported released only after verification (invariant 4).
 */
export async function releaseResourceRequested(
  database: Database,
  input: { workItemId: string; type: string; handle: string; actor: string; reason: string; leaseToken?: string },
) {
  return writeLedger(database, async (w) => {
    if (input.leaseToken !== undefined) {
      const item = await loadLeasedItem(w, input.workItemId);
      if (item.leaseToken !== input.leaseToken)
        return rejectStaleLease(w, item, input.leaseToken, "release resource", input.actor, { type: input.type, handle: input.handle });
    }
    const resource = await w.tx.resource.findUnique({
      where: { workItemId_type_handle: { workItemId: input.workItemId, type: input.type, handle: input.handle } },
    });
    if (!resource)
      throw new AppError(ErrorCode.notFound, `work item ${input.workItemId} holds no ${input.type} ${input.handle}`, {
        type: input.type,
        handle: input.handle,
      });
    if (resource.state !== ResourceState.held) return resource;
    return (
      (await casUpdate(w, {
        entity: "resource",
        id: resource.id,
        from: ResourceState.held,
        to: ResourceState.releaseRequested,
        event: {
          taskId: resource.taskId,
          workItemId: resource.workItemId,
          actor: input.actor,
          type: LedgerEvent.resourceReleaseRequested,
          reason: input.reason,
        },
      })) ?? resource
    );
  });
}

/** The event that records each verification outcome. */
const VERIFIED_EVENT = {
  [ResourceState.released]: LedgerEvent.resourceReleased,
  [ResourceState.orphaned]: LedgerEvent.resourceOrphaned,
  [ResourceState.held]: LedgerEvent.resourceStillHeld,
} as const;

/** Records the outcome of a verification query (released, or still held after the retry → orphaned). */
export async function recordVerification(
  database: Database,
  input: {
    resourceId: string;
    to: typeof ResourceState.released | typeof ResourceState.orphaned | typeof ResourceState.held;
    actor: string;
    reason: string;
    attempt: number;
  },
) {
  return writeLedger(database, async (w) => {
    await w.lockRow("resource", input.resourceId);
    const resource = await w.tx.resource.findUniqueOrThrow({ where: { id: input.resourceId } });
    if (resource.state === input.to) return resource;
    const now = await w.now();
    return casUpdate(w, {
      entity: "resource",
      id: resource.id,
      from: resource.state,
      to: input.to,
      data: { verifiedAt: now, attempts: input.attempt },
      event: {
        taskId: resource.taskId,
        workItemId: resource.workItemId,
        actor: input.actor,
        type: VERIFIED_EVENT[input.to],
        reason: input.reason,
        data: { attempt: input.attempt },
      },
    });
  });
}
