import type { Database } from "../db/client";
import { Mechanism, WorkItemStatus } from "../ledger/states";
import type { ToolRegistry } from "../tools/registry";
import { waitForChildren } from "./wait-for-children";

/**
 * Children whose stop contract lives in the process that runs them (issue 23): a provider-side or rollback child
 * whose tool this engine does not have — an agent's AI SDK wrapper (lib/sdk/ai.ts), an SDK worker outside the app —
 * while that process still holds the child's lease. The owner runs cancel / rollback and then inspect, and reports
 * what the service said (completed, cancelled, partial — or uncertain, with its reason). The engine cannot ask that
 * service itself, so it waits for that report before it settles, instead of concluding "nobody can find out" a few
 * milliseconds after the Stop and then being overturned by the owner's report (a settled summary is final).
 *
 * Bounded by the owner's lease: an owner that is gone stops renewing it, the lease expires, and the child is no
 * longer owner-hosted — the engine's own reconciliation takes it (and, with no inspect in this process, a person
 * decides). `ownerSettleTimeoutMs` bounds the wait of one pass.
 */
export function ownerHosted(registry: ToolRegistry, now: Date) {
  return {
    status: { in: [WorkItemStatus.running, WorkItemStatus.submitted, WorkItemStatus.cancelling] },
    mechanism: { in: [Mechanism.providerCancel, Mechanism.rollback] },
    toolName: { notIn: registry.names() },
    leaseToken: { not: null },
    leaseExpiresAt: { gt: now },
  };
}

export function isOwnerHosted(
  item: { status: string; mechanism: string; toolName: string; leaseToken: string | null; leaseExpiresAt: Date | null },
  registry: ToolRegistry,
  now: Date,
): boolean {
  return (
    ([WorkItemStatus.running, WorkItemStatus.submitted, WorkItemStatus.cancelling] as string[]).includes(item.status) &&
    (item.mechanism === Mechanism.providerCancel || item.mechanism === Mechanism.rollback) &&
    !registry.local(item.toolName) &&
    item.leaseToken !== null &&
    item.leaseExpiresAt !== null &&
    item.leaseExpiresAt > now
  );
}

/** Waits (up to timeoutMs) until no child in scope is owner-hosted: each reported, or its owner's lease ran out. */
export async function waitForOwners(
  database: Database,
  scope: { taskId: string } | { ids: string[] },
  registry: ToolRegistry,
  timeoutMs: number,
): Promise<void> {
  const where = "taskId" in scope ? { taskId: scope.taskId } : { id: { in: scope.ids } };
  await waitForChildren(scope, () => database.prisma.workItem.count({ where: { ...where, ...ownerHosted(registry, new Date()) } }), timeoutMs);
}

/** Default bound of one pass's wait for owners (a wrapper's stop path is its cancel plus `settleMs` of inspect). */
export const OWNER_SETTLE_TIMEOUT_MS = 30_000;
