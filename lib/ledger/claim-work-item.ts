import { onEngine, type Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { DEFAULT_LEASE_MS, newLeaseToken } from "./lease";
import { claimOnPg, claimOnSqlite } from "./sql/report-and-claim";

export interface ClaimInput {
  workerId: string;
  /** Only claim items of these tools (a worker serves the tools it has). */
  toolNames?: string[];
  leaseMs?: number;
}

/**
 * Claims the oldest queued item whose task may still start work, with a fresh fencing token and a lease
 * expiry judged by the database clock. Returns null when there is nothing to claim.
 *
 * The claim is a compare-and-set on the item's status AND the task's stage and intent version (invariant 2):
 * an item of a task that has passed its cancellation boundary, or that was prepared under an older intent,
 * is never started — whatever a worker believed when it asked. One statement on the driver on both engines
 * (sql/report-and-claim.ts, sql/boundary.ts: how a claim and the boundary exclude each other).
 */
export async function claimWorkItem(database: Database, input: ClaimInput): Promise<WorkItem | null> {
  const claim = { ...input, leaseMs: input.leaseMs ?? DEFAULT_LEASE_MS };
  return onEngine(database, { sqlite: (direct) => claimOnSqlite(direct, { ...claim, leaseToken: newLeaseToken() }), postgres: (pg) => claimOnPg(pg, claim) });
}
