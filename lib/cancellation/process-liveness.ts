import type { Database } from "../db/client";
import { isLocalWorker, workerLeaseExpiries } from "../ledger/process-lease";
import { recoverExpiredLeases } from "../ledger/recover-expired-leases";
import { WorkItemStatus } from "../ledger/states";
import { databaseNow } from "../ledger/write";
import { logStep, sleep } from "./step-log";

/** Children being stopped that a worker still holds by a lease: the pass must know whether that worker's process lives. */
const HELD_BUSY = [WorkItemStatus.running, WorkItemStatus.submitted, WorkItemStatus.cancelling, WorkItemStatus.unrecoverable];

/**
 * Issue 19 §2 — a dead process's work is not "still running". Before a pass settles over children that are still
 * being stopped under a worker's lease, it finds out whether that worker's process lives:
 * - alive: a worker of this process, or one that renewed its process lease (`worker:<id>`) since this check began —
 *   the child really is still running, and the summary may say so;
 * - gone: the child's own lease ran out, or its worker's process lease expired — lease recovery takes the child over
 *   at once (recover-expired-leases.ts: uncertain, or discarded when it committed nothing), and the pass goes on to
 *   stop it through its service, ask the service (inspect) and clean up and verify its resources;
 * - not yet known: the pass waits, bounded by that process lease's expiry, and says why in a step while it waits.
 * A worker that never registered a process lease is judged by its item leases alone (as before).
 * Returns the children recovered because their process was gone.
 */
export async function recoverChildrenOfGoneProcesses(database: Database, taskId: string): Promise<string[]> {
  const held = () =>
    database.prisma.workItem.findMany({
      where: { taskId, status: { in: HELD_BUSY }, leaseToken: { not: null } },
      select: { id: true, leaseOwner: true, leaseExpiresAt: true, toolName: true },
    });
  let busy = await held();
  if (!busy.length) return [];
  const owners = [...new Set(busy.map((i) => i.leaseOwner).filter((o): o is string => !!o && !isLocalWorker(o)))];
  const first = await workerLeaseExpiries(database, owners);
  const deadline = Math.max(0, ...[...first.values()].map((d) => d.getTime())) + 1_000;
  let told = false;
  for (;;) {
    const now = await databaseNow(database.prisma, database.provider);
    const expiries = await workerLeaseExpiries(database, owners);
    const gone = (i: (typeof busy)[number]) =>
      (i.leaseExpiresAt !== null && i.leaseExpiresAt < now) || (!!i.leaseOwner && (expiries.get(i.leaseOwner)?.getTime() ?? Infinity) < now.getTime());
    const unknown = (i: (typeof busy)[number]) => {
      if (!i.leaseOwner || isLocalWorker(i.leaseOwner) || gone(i)) return false;
      const at = expiries.get(i.leaseOwner);
      const before = first.get(i.leaseOwner);
      // registered before the check began and not renewed since (one that registered meanwhile is alive)
      return at !== undefined && before !== undefined && at.getTime() <= before.getTime();
    };
    const waiting = busy.filter(unknown);
    if (!waiting.length || now.getTime() > deadline) {
      const dead = busy.filter(gone);
      if (!dead.length) return [];
      await recoverExpiredLeases(database);
      const after = new Set((await held()).map((i) => i.id));
      return dead.filter((i) => !after.has(i.id)).map((i) => i.id);
    }
    if (!told) {
      told = true;
      for (const i of waiting) {
        await logStep(database, {
          taskId,
          workItemId: i.id,
          action: "await_process",
          success: true,
          detail: `waiting to hear from the process that runs ${i.toolName} (${i.leaseOwner}) before settling: if it stopped, the service is asked what happened and its resources are cleaned up`,
        });
      }
    }
    await sleep(100);
    busy = await held();
  }
}
