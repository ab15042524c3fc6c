import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { reconcileOrphanReports } from "../../../lib/cancellation/steps/5-reconcile";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { completeWorkItem } from "../../../lib/ledger/complete-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { recordSubmission } from "../../../lib/ledger/record-submission";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import type { InspectOutcome } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";

/**
 * A late report: the worker's lease had moved on (its item already ended) when it reported an action the service
 * accepted. The fact is recorded as an effect of unknown outcome (record-submission.ts), and the engine asks the
 * service about that effect by itself (reconcileOrphanReports) — the ledger takes the service's answer, and a
 * committed action under a Stop goes to a person.
 */
let t: TestDatabase;
const said = new Map<string, InspectOutcome>();
const registry = new ToolRegistry();
beforeAll(async () => {
  t = await createTestDatabase();
  registry.register({
    name: "crm.late",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "rollback",
    run: async () => null,
    rollback: async () => {},
    inspect: async (ref) => said.get(ref.operationId ?? "") ?? { status: "unknown", reason: "the service does not know the operation" },
  });
});
afterAll(async () => t?.drop());

async function lateReport(operationId: string) {
  const task = await createTask(t.database, { title: `add Ada (${operationId})`, ownerId: "alice" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "external_action", toolName: "crm.late", mechanism: "rollback", intentVersion: 1, commitsEffect: true },
    "agent:test",
  );
  const claimed = await claimWorkItem(t.database, { workerId: "w", toolNames: ["crm.late"] });
  // the worker reports the call failed (a timeout, say) — and a moment later that the service had accepted it
  await completeWorkItem(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, outcome: "failed", error: "timed out", actor: "worker:w" });
  await recordSubmission(t.database, { workItemId: item.id, leaseToken: claimed!.leaseToken!, operationId, actor: "worker:w" }).catch(() => {});
  const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId } });
  expect(effect.outcome).toBe("unknown");
  return { task, item, effect };
}
const reconciledEvents = (effectId: string) =>
  t.database.prisma.ledgerEvent.findMany({ where: { entityId: effectId, type: "side_effect.reconciled" }, orderBy: { seq: "asc" } });

describe(`a late report is asked about by itself (${testEngine()})`, () => {
  it("the service says committed, after a Stop: the effect is committed with the service's record, one event, and a person is told", async () => {
    const { task, effect } = await lateReport("op-late-committed");
    await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "user:alice" });
    said.set("op-late-committed", { status: "committed", externalRecordId: "crm-42", externalVersion: "v1" });
    await reconcileOrphanReports(t.database, registry, { taskId: task.id });

    expect(await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { id: effect.id } })).toMatchObject({
      outcome: "committed",
      externalRecordId: "crm-42",
      externalVersion: "v1",
    });
    const events = await reconciledEvents(effect.id);
    expect(events.map((e) => [e.fromState, e.toState, e.reason])).toEqual([["unknown", "committed", "inspect of a late report: committed"]]);
    const reviews = await t.database.prisma.reviewItem.findMany({ where: { taskId: task.id } });
    // (the tool cannot compensate: a person is told it cannot be reversed)
    expect(reviews.map((r) => [r.kind, r.subject.startsWith("Cannot be reversed:")])).toEqual([["orphaned_side_effect", true]]);

    // asked again (the next maintenance pass): nothing changes
    await reconcileOrphanReports(t.database, registry, { taskId: task.id });
    expect(await reconciledEvents(effect.id)).toHaveLength(1);
  });

  it("the service says not committed: the effect says so; no Stop, nobody to ask", async () => {
    const { task, effect } = await lateReport("op-late-not");
    said.set("op-late-not", { status: "not_committed" });
    await reconcileOrphanReports(t.database, registry, { taskId: task.id });
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { id: effect.id } })).outcome).toBe("not_committed");
    expect((await reconciledEvents(effect.id)).map((e) => e.reason)).toEqual(["inspect of a late report: not_committed"]);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: task.id } })).toBe(0);
  });

  it("the service cannot say: the effect stays unknown (never guessed), and the question is logged as unanswered", async () => {
    const { task, effect } = await lateReport("op-late-unknown");
    await reconcileOrphanReports(t.database, registry, { taskId: task.id });
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { id: effect.id } })).outcome).toBe("unknown");
    expect(await reconciledEvents(effect.id)).toHaveLength(0);
    const steps = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "cancellation.step" } });
    expect(steps.map((s) => s.reason)).toEqual(["a late report (op-late-unknown): the service says unknown"]);
  });
});
