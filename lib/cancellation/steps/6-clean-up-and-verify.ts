import type { Database } from "../../db/client";
import { recordVerification } from "../../ledger/resources";
import { isTerminalItem, ResourceState, ReviewItemKind, TERMINAL_ITEM_STATUSES, WorkItemStatus } from "../../ledger/states";
import type { ToolRegistry } from "../../tools/registry";
import { openReviewItem } from "./7-review";
import { refFor } from "../call-ref";
import { resolveIntents } from "../resolve-intents";
import { intentsAwaitingResolution } from "../../ledger/resource-intents";
import { ENGINE_ACTOR, answerWithin, logStep, sleep } from "../step-log";
import { markServiceRunning } from "../service-running";
import type { EngineOptions } from "../engine-options";

// Step 6: what ended children hold is released and verified (or reported orphaned); the gate before settling.

/**
 * Resources whose cleanup is due: still held (or asked to be released) by a child that ended, or by an uncertain
 * one whose worker is gone. An uncertain child whose worker still holds its lease, or whose service said it still
 * runs (`serviceRunningAt`: a job that runs on after a failed cancel), may still be using what it holds: not yet —
 * cleanupLateSettled takes those once it ends (reconciliation clears the mark when the service says otherwise).
 */
export const awaitingCleanup = (scope: { taskId?: string; workItemIds?: string[] }) => ({
  ...(scope.taskId ? { taskId: scope.taskId } : {}),
  ...(scope.workItemIds ? { workItemId: { in: scope.workItemIds } } : {}),
  state: { in: [ResourceState.held, ResourceState.releaseRequested] },
  workItem: { OR: [{ status: { in: [...TERMINAL_ITEM_STATUSES] } }, { status: WorkItemStatus.uncertain, leaseToken: null, serviceRunningAt: null }] },
});

/**
 * Which pass cleans up: the Stop's own (before its settlement: it waits up to settleTimeoutMs for calls still running at
 * their service) or the late pass (maintenance, after the settlement: no wait; what it cannot do now, its next pass does).
 */
export type CleanupPass = "stop" | "late";

/** Releases what the task's settled children still hold, then verifies: re-query after a delay, retry once, else ORPHANED. */
export async function cleanupAndVerify(
  database: Database,
  taskId: string,
  o: EngineOptions & { verifyDelayMs: number },
  only?: { workItemIds: string[] },
  pass: CleanupPass = "stop",
) {
  // Written ahead: what an ended call may hold but never named (its answer was lost) is asked of its service first,
  // so that the cleanup below sees it by its concrete handle (resolve-intents.ts).
  await resolveIntents(database, o.registry, { taskId, workItemIds: only?.workItemIds }, o);
  const settled = await database.prisma.resource.findMany({
    where: awaitingCleanup({ taskId, workItemIds: only?.workItemIds }),
    include: { workItem: { select: { status: true, toolName: true, leaseToken: true } } },
  });
  if (!settled.length) return;
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  const notNow = await waitForCallsRunningAtService(database, settled, o, pass);
  for (const r of settled) {
    if (notNow.has(r.workItemId)) continue; // held by running work (or the late pass got no answer): not cleaned up under it, not orphaned
    const tool = o.registry.get(r.workItem.toolName);
    const ref = { id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle };
    if (!tool?.cleanup || !tool.verifyReleased) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.orphaned,
        actor: ENGINE_ACTOR,
        reason: `no way to release or verify ${r.type} ${r.handle}`,
        attempt: 0,
      });
      await openReviewItem(database, {
        taskId,
        resourceId: r.id,
        workItemId: r.workItemId,
        kind: ReviewItemKind.orphanedResource,
        risk: tool?.risk ?? task.riskLevel,
        subject: `${r.type} ${r.handle} of ${r.workItem.toolName} cannot be released or verified by Stopline`,
      });
      continue;
    }
    let released = false;
    let attempt = 0;
    while (attempt < 2 && !released) {
      attempt++;
      const cleaned = await answerWithin(() => tool.cleanup!(ref));
      await logStep(database, {
        taskId,
        workItemId: r.workItemId,
        action: "cleanup",
        success: cleaned.ok,
        detail: `${r.type} ${r.handle}, attempt ${attempt}${cleaned.ok ? "" : `: ${cleaned.error.message}`}`,
      });
      await sleep(o.verifyDelayMs);
      const verified = await answerWithin(() => tool.verifyReleased!(ref));
      released = verified.ok && verified.value === true;
      await logStep(database, {
        taskId,
        workItemId: r.workItemId,
        action: "verify_release",
        success: released,
        detail: `${r.type} ${r.handle}, attempt ${attempt}: ${released ? "released" : "still held"}`,
      });
    }
    if (released) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.released,
        actor: ENGINE_ACTOR,
        reason: "verified released by a re-query",
        attempt,
      });
    } else {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.orphaned,
        actor: ENGINE_ACTOR,
        reason: "still held after cleanup and one retry",
        attempt,
      });
      await openReviewItem(database, {
        taskId,
        resourceId: r.id,
        workItemId: r.workItemId,
        kind: ReviewItemKind.orphanedResource,
        risk: tool.risk === "high" ? "high" : task.riskLevel,
        subject: `${r.type} ${r.handle} of ${r.workItem.toolName} is still held after cleanup and one retry`,
      });
    }
  }
}

/**
 * Waits (bounded by settleTimeoutMs, the reason stated in the task's steps) while the service reports a holder's call
 * still running — asked through inspect(). Cleaning up under a running call fails ("still running; cancel it first")
 * and recorded ORPHANED what the service released a moment later when the call ended (random conformance: reports
 * cancelUnavailable, PostgreSQL seed 2027 #1, #93, #158). A call still running after the wait is marked so
 * (`serviceRunningAt`, markServiceRunning): what it holds is reported "still held by a step that is still running",
 * never "could not be released", and is cleaned up and verified once the service says it ended.
 * An unanswered inspect (timed out, failed, or "unknown") is not "it ended": it is asked again within the same wait —
 * taken as ended, the cleanup ran under a call that was still running (an inspect past cancelTimeoutMs on a loaded
 * machine; a candidate cause of random conformance SQLite seed 1412 #33). Still unanswered at the deadline, the
 * Stop's pass tries the cleanup as before (a failed release is recorded, and re-asked once the call is known to have
 * ended); the late pass leaves an uncertain call's resources to its next pass. Returns the holders not cleaned up now.
 */
async function waitForCallsRunningAtService(
  database: Database,
  resources: { workItemId: string; workItem: { status: string } }[],
  o: EngineOptions,
  pass: CleanupPass,
): Promise<Set<string>> {
  const waitMs = pass === "stop" ? (o.settleTimeoutMs ?? 5_000) : 0;
  const ids = [...new Set(resources.filter((r) => !isTerminalItem(r.workItem.status) || r.workItem.status === WorkItemStatus.failed).map((r) => r.workItemId))];
  const deadline = Date.now() + waitMs;
  const notNow = new Set<string>();
  for (const id of ids) {
    const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id } });
    const tool = o.registry.get(item.toolName);
    if (!tool?.inspect) continue;
    const ref = await refFor(database, item);
    let logged: "running" | "unanswered" | null = null;
    for (;;) {
      const asked = await answerWithin(() => tool.inspect!(ref), o.cancelTimeoutMs ?? 5_000);
      const status = asked.ok ? asked.value.status : "unknown";
      const why = !asked.ok ? asked.error.message : asked.value.status === "unknown" ? asked.value.reason : "";
      if (status !== "running" && status !== "unknown") break; // it ended at its service: its cleanup follows
      if (Date.now() >= deadline) {
        if (status === "running" && (await markServiceRunning(database, item, true))) notNow.add(id);
        // The late pass (the Stop has settled): an uncertain call whose service gave no answer is left to its next pass
        // rather than cleaned up under what may be a running call. Reconciliation asks the same service and opens a
        // review for a person if it never answers (5-reconcile.ts).
        else if (status === "unknown" && pass === "late" && item.status === WorkItemStatus.uncertain) notNow.add(id);
        break;
      }
      const waitingFor: "running" | "unanswered" = status === "running" ? "running" : "unanswered";
      if (logged !== waitingFor)
        await logStep(database, {
          taskId: item.taskId,
          workItemId: id,
          action: "verify_release",
          success: false,
          detail:
            waitingFor === "running"
              ? "waiting: the call is still running at its service, so what it holds cannot be released yet"
              : `waiting: its service has not said whether the call still runs (${why}), so what it holds is not released under it yet`,
        });
      logged = waitingFor;
      await sleep(100);
    }
  }
  return notNow;
}

/**
 * An orphaned resource is asked about again (the service may have released it late, or a person fixed it):
 * verified released → `released`. Nothing is cleaned up here; it only records what a re-query confirms.
 */
export async function reverifyOrphans(database: Database, registry: ToolRegistry) {
  const orphans = await database.prisma.resource.findMany({
    where: { state: ResourceState.orphaned },
    include: { workItem: { select: { toolName: true } } },
    take: 50,
  });
  for (const r of orphans) {
    const tool = registry.get(r.workItem.toolName);
    if (!tool?.verifyReleased) continue;
    const verified = await answerWithin(() => tool.verifyReleased!({ id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle }));
    if (verified.ok && verified.value) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.released,
        actor: ENGINE_ACTOR,
        reason: "a later re-query found it released",
        attempt: r.attempts + 1,
      });
    }
  }
}

/**
 * Resources of stopped tasks whose children ended after the task settled: cleaned up and verified now. So are the
 * open intents of a child whose worker went away after the settlement (the Stop settled while an uncertain child
 * still held a live-looking lease; the lease expired later): asked of the service first (random conformance, SQLite
 * seed 1209 #324 — nothing else ever asked, and the lock and temp file stayed held at the service unreported).
 */
export async function cleanupLateSettled(database: Database, options: EngineOptions & { verifyDelayMs: number }) {
  const stopped = { task: { cancelRequestedAt: { not: null } } };
  const [resources, intents] = await Promise.all([
    database.prisma.resource.findMany({ where: { ...awaitingCleanup({}), ...stopped }, select: { taskId: true }, distinct: ["taskId"], take: 20 }),
    database.prisma.resourceIntent.findMany({
      where: { ...intentsAwaitingResolution({}), ...stopped },
      select: { taskId: true },
      distinct: ["taskId"],
      take: 20,
    }),
  ]);
  // (no waiting here: the maintenance pass serves every task — a late-settled child is cleaned up as before)
  for (const taskId of new Set([...resources, ...intents].map((r) => r.taskId))) await cleanupAndVerify(database, taskId, options, undefined, "late");
}
