import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileOrphanReports, reconcileWorkItem } from "../../../lib/cancellation/steps/5-reconcile";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { recordSubmission } from "../../../lib/ledger/record-submission";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import type { InspectOutcome, ToolDefinition } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";

// Reconciliation asks the service what became of a stopped call and may withdraw it first. A service that never
// answers must not hold the Stop (an engine pass awaited it for ever): each call is bounded by the run's cancel
// timeout, and a call that timed out counts as no answer — the child is uncertain and a person is asked, never
// "not committed" on a guess.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const never = () => new Promise<never>(() => {});
const CANCEL = { cancelAttempts: 1, cancelBackoffMs: 0, cancelTimeoutMs: 300 };

function remoteTool(name: string, service: { inspect: () => Promise<InspectOutcome>; cancel: () => Promise<void> }): ToolDefinition<unknown, unknown> {
  return { name, kind: "remote_tool", risk: "low", commitsEffect: true, mechanism: "provider_cancel", run: never, ...service };
}

/** A child the service accepted (submitted, with an operation id), whose task was then stopped. */
async function stoppedAfterSubmit(tool: ToolDefinition<unknown, unknown>) {
  const task = await createTask(t.database, { title: `stopped: ${tool.name}`, ownerId: "alice" }, actor);
  const item = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "remote_tool", toolName: tool.name, mechanism: "provider_cancel", commitsEffect: true, intentVersion: 1 },
    actor,
  );
  const claimed = await claimWorkItem(t.database, { workerId: "w", toolNames: [tool.name], leaseMs: 60_000 });
  await checkpointWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, actor: "worker:w" });
  await recordSubmission(t.database, {
    workItemId: item.id,
    leaseToken: claimed!.leaseToken!,
    operationId: `op-${item.id}`,
    reversible: true,
    actor: "worker:w",
  });
  await requestCancellation(t.database, { taskId: task.id, actor });
  // The worker is gone (its lease cleared): nobody can still send it but the service's own queue.
  await t.database.prisma.workItem.update({ where: { id: item.id }, data: { leaseToken: null, leaseExpiresAt: null } });
  return t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
}

const reviewsOf = (workItemId: string) => t.database.prisma.reviewItem.findMany({ where: { workItemId, status: "open" } });
const eventTypes = async (workItemId: string) =>
  (await t.database.prisma.ledgerEvent.findMany({ where: { workItemId }, orderBy: { seq: "asc" } })).map((e) => e.type);

describe("reconciling with a service that never answers", () => {
  it("its cancel hangs: given up after the cancel timeout, the dispatch recorded as unanswered, the child uncertain, a person asked", async () => {
    const tool = remoteTool("hang.cancel", { inspect: async () => ({ status: "not_committed" }), cancel: never });
    const item = await stoppedAfterSubmit(tool);
    const started = Date.now();
    const to = await reconcileWorkItem(t.database, item, tool, new ToolRegistry().register(tool), CANCEL);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(to).toBe("uncertain");
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    // Dispatched once and answered "no" (it may be tried again); never taken as withdrawn.
    expect(row).toMatchObject({ status: "uncertain", cancelDispatchAction: "provider_cancel", cancelWithdrawnAt: null });
    expect(row.cancelAnsweredAt).not.toBeNull();
    const events = await eventTypes(item.id);
    expect(events.filter((e) => e === LedgerEvent.cancellationDispatched)).toHaveLength(1);
    expect(events).not.toContain(LedgerEvent.cancellationWithdrawn);
    const reviews = await reviewsOf(item.id);
    expect(reviews.map((r) => r.kind)).toEqual(["resolve_uncertain"]);
    expect(reviews[0].subject).toMatch(/no answer within 300 ms/);
  });

  it("its inspect hangs: uncertain after the timeout, no cancel sent on a guess", async () => {
    let cancels = 0;
    const tool = remoteTool("hang.inspect", {
      inspect: never,
      cancel: async () => {
        cancels++;
      },
    });
    const item = await stoppedAfterSubmit(tool);
    const started = Date.now();
    expect(await reconcileWorkItem(t.database, item, tool, new ToolRegistry().register(tool), CANCEL)).toBe("uncertain");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(cancels).toBe(0);
    expect((await reviewsOf(item.id)).map((r) => r.subject)).toEqual([expect.stringMatching(/inspect failed: no answer within 300 ms/)]);
  });

  it("a late report's effect whose inspect hangs: the pass ends (after the default 5 s cancel timeout), the effect stays unknown", async () => {
    const tool = remoteTool("hang.late-report", { inspect: never, cancel: never });
    const item = await stoppedAfterSubmit(tool);
    // Settled already (its late report came after the lease moved on): only its effect is left to ask about.
    await t.database.prisma.workItem.update({ where: { id: item.id }, data: { status: "cancelled_incomplete" } });
    const started = Date.now();
    await reconcileOrphanReports(t.database, new ToolRegistry().register(tool), { taskId: item.taskId });
    expect(Date.now() - started).toBeLessThan(8_000);
    const effect = await t.database.prisma.sideEffect.findFirstOrThrow({ where: { workItemId: item.id } });
    expect(effect.outcome).toBe("unknown");
    const steps = await t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id, type: LedgerEvent.cancellationStep } });
    expect(steps.map((s) => s.reason)).toContain(`a late report (op-${item.id}): the service says unknown`);
  }, 15_000);
});
