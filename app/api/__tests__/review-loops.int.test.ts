import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { executeCancellation } from "@/lib/cancellation/execute-cancellation";
import { getCancellationSummary } from "@/lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "@/lib/cancellation/steps/1-record-boundary";
import { checkpointWorkItem } from "@/lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";
import { completeWorkItem } from "@/lib/ledger/complete-work-item";
import { createTask } from "@/lib/ledger/create-task";
import { markUncertain } from "@/lib/ledger/mark-uncertain";
import { recordSubmission } from "@/lib/ledger/record-submission";
import { holdResource } from "@/lib/ledger/resources";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";
import { appRegistry } from "@/lib/runtime/app-registry";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * Review loops that close: an uncertain outcome resolved with what a person found reaches the summary's message;
 * the losing side of two simultaneous decisions is told who, when and what; a version conflict keeps what the
 * service said; an orphaned resource can be released again (cleanup + verification, recorded).
 */

let t: TestDatabase;
const tokens = { admin: "", operator: "" };
const crm = new Map<string, { version: number; laterWrites: { version: number; by: string; action: string; at: string }[] }>();
let lockHeld = true;
/** A service that accepts the connection and never answers (inspect, cleanup, verification). */
let servicesHang = false;
/** A CRM that restores the record and then never answers the compensation call (its answer lost on the way). */
let compensationAnswerLost = false;
const hang = () => new Promise<never>(() => {});

beforeAll(async () => {
  process.env.STOPLINE_VERIFY_DELAY_MS = "5";
  t = await createTestDatabase();
  t.install();
  tokens.admin = (await createApiToken(t.database, { name: "ops-loops", role: "admin" })).token;
  tokens.operator = (await createApiToken(t.database, { name: "ops-loops-2", role: "admin" })).token;
  const registry = appRegistry();
  // A shop nobody can ask afterwards (no inspect): an order whose outcome is unknown goes to a person.
  registry.register({ name: "loops.place_order", kind: "external_action", risk: "low", commitsEffect: true, mechanism: "none", run: async () => null });
  // A CRM that reports who wrote the record after the agent, and refuses a compensation at a stale version.
  registry.register({
    name: "loops.crm_create",
    kind: "external_action",
    risk: "low",
    commitsEffect: true,
    mechanism: "abort_signal",
    run: async () => null,
    async inspect(ref) {
      if (servicesHang) return hang();
      const r = crm.get(ref.operationId ?? "")!;
      const editedBy = [...new Set(r.laterWrites.map((w) => w.by))];
      return {
        status: "committed",
        externalRecordId: ref.operationId,
        externalVersion: "1",
        currentVersion: String(r.version),
        evidence: { createdVersion: "1", currentVersion: String(r.version), editedBy, laterWrites: r.laterWrites },
      };
    },
    async compensate(e, expectedVersion) {
      const record = crm.get(e.operationId);
      if (compensationAnswerLost && record) {
        record.version++;
        record.laterWrites.push({ version: record.version, by: "compensation", action: "restore", at: new Date().toISOString() });
        return hang();
      }
      return { status: "conflict", currentVersion: String([...crm.values()][0]?.version), detail: `not at ${expectedVersion}` };
    },
  });
  // A lock that stays held until the test lets it go.
  registry.register({
    name: "loops.take_lock",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    run: async () => null,
    async cleanup() {
      if (servicesHang) await hang();
    },
    async verifyReleased() {
      if (servicesHang) return hang();
      return !lockHeld;
    },
  });
});
afterAll(async () => t?.drop());

async function started(title: string, toolName: string, mechanism: "none" | "abort_signal") {
  const task = await createTask(t.database, { title, ownerId: "alice" }, "agent:t");
  await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "external_action", toolName, mechanism, intentVersion: 1, commitsEffect: toolName !== "loops.take_lock" },
    "agent:t",
  );
  const item = (await claimWorkItem(t.database, { workerId: "w", toolNames: [toolName] }))!;
  return { task, lease: { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:w" } };
}
const stop = async (taskId: string) => {
  await requestCancellation(t.database, { taskId, reason: "stop", actor: "agent:t" });
  await executeCancellation(t.database, taskId, { registry: appRegistry(), verifyDelayMs: 5, settleTimeoutMs: 100 });
};
const reviewsOf = async (taskId: string) =>
  (await json(await call("GET", `/api/review-items?taskId=${taskId}`, { token: tokens.admin }))).reviewItems as { id: string; kind: string; status: string }[];
const decide = (id: string, body: Record<string, unknown>, token = tokens.admin) => call("POST", `/api/review-items/${id}/decision`, { token, body });

async function uncertainOrder(orderId: string) {
  const { task, lease } = await started(`order ${orderId}`, "loops.place_order", "none");
  await checkpointWorkItem(t.database, lease);
  await recordSubmission(t.database, { ...lease, operationId: orderId, reversible: false, description: `order ${orderId}` });
  await markUncertain(t.database, { workItemId: lease.workItemId, leaseToken: lease.leaseToken, reason: "the shop timed out", actor: "worker:w" });
  await stop(task.id);
  const item = (await reviewsOf(task.id)).find((r) => r.kind === "resolve_uncertain")!;
  expect(item).toBeDefined();
  return { task, item, workItemId: lease.workItemId };
}

describe("resolving an uncertain outcome", () => {
  it("'took effect' with evidence: the effect is committed, the child completed, and the person's message says an operator confirmed it", async () => {
    const { task, item, workItemId } = await uncertainOrder("o-loops-1");
    expect((await getCancellationSummary(t.database, task.id)).user_message).toMatch(/cannot be established by Stopline; a person decides/);
    const res = await decide(item.id, {
      decision: "resolve",
      finding: "took_effect",
      reason: "the shop's back office shows it",
      evidence: "order o-loops-1 in the admin panel, 14:02",
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "o-loops-1" } });
    expect(effect.outcome).toBe("committed");
    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId } })).status).toBe("completed");
    const summary = await getCancellationSummary(t.database, task.id);
    expect(summary.user_message).toContain("An operator confirmed that order o-loops-1 took effect.");
    expect(summary.user_message).not.toMatch(/cannot be established/);
    const events = await t.database.prisma.ledgerEvent.findMany({
      where: { taskId: task.id, type: { in: ["review_item.resolved", "side_effect.reconciled", "work_item.reconciled"] } },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => e.type)).toEqual(["review_item.resolved", "side_effect.reconciled", "work_item.reconciled"]);
    expect(events[0].data).toMatchObject({ finding: "took_effect", evidence: "order o-loops-1 in the admin panel, 14:02" });
  });

  it("'did not take effect': not committed, the child stopped; 'cannot tell' changes no effect", async () => {
    const did = await uncertainOrder("o-loops-2");
    expect((await decide(did.item.id, { decision: "resolve", finding: "did_not_take_effect", reason: "no such order at the shop" })).status).toBe(200);
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "o-loops-2" } })).outcome).toBe("not_committed");
    expect((await getCancellationSummary(t.database, did.task.id)).user_message).toContain("An operator confirmed that order o-loops-2 did not take effect.");

    const cannot = await uncertainOrder("o-loops-3");
    expect((await decide(cannot.item.id, { decision: "resolve", finding: "cannot_tell", reason: "the shop cannot say" })).status).toBe(200);
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "o-loops-3" } })).outcome).toBe("unknown");
    expect((await getCancellationSummary(t.database, cannot.task.id)).user_message).toContain(
      "An operator could not establish whether order o-loops-3 took effect.",
    );
  });

  it("a finding that is not one of the three is a 400 naming the field", async () => {
    const { item } = await uncertainOrder("o-loops-5");
    const res = await decide(item.id, { decision: "resolve", finding: "maybe", reason: "x" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await json(res))).toContain("finding");
  });
});

describe("two simultaneous decisions", () => {
  it("the losing side is told who decided, when and what — not an id", async () => {
    const { item } = await uncertainOrder("o-loops-4");
    const [a, b] = await Promise.all([
      decide(item.id, { decision: "resolve", finding: "took_effect", reason: "first" }),
      decide(item.id, { decision: "resolve", finding: "did_not_take_effect", reason: "second" }, tokens.operator),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const loser = a.status === 409 ? a : b;
    const message = (await json(loser)).error.message as string;
    expect(message).toMatch(/^ops-loops(-2)? already resolved this at \d\d:\d\d UTC \(“(first|second)/);
    expect(message).toMatch(/Your decision was not recorded\.$/);
    expect(message).not.toContain(item.id);
  });
});

describe("a version conflict", () => {
  it("keeps what the service said on the side effect: the agent's version, the current one, who changed it and how", async () => {
    const { task, lease } = await started("CRM record", "loops.crm_create", "abort_signal");
    await checkpointWorkItem(t.database, lease);
    crm.set("rec-loops-1", { version: 1, laterWrites: [] });
    await recordSubmission(t.database, {
      ...lease,
      operationId: "rec-loops-1",
      externalRecordId: "rec-loops-1",
      externalVersion: "1",
      reversible: true,
      description: "CRM record rec-loops-1",
    });
    await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: "rec-loops-1", externalVersion: "1" });
    await stop(task.id);
    const item = (await reviewsOf(task.id)).find((r) => r.kind === "approve_compensation")!;
    crm.set("rec-loops-1", {
      version: 2,
      laterWrites: [{ version: 2, by: "bob@crm", action: "changed phone from 555-0100 to 555-0199", at: "2026-12-01T14:03:00Z" }],
    });
    const res = await decide(item.id, { decision: "approve", reason: "undo", target: "rec-loops-1", expectedVersion: "1" });
    expect(res.status).toBe(409);
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "rec-loops-1" } });
    expect(effect.evidence).toMatchObject({
      createdVersion: "1",
      currentVersion: "2",
      editedBy: ["bob@crm"],
      laterWrites: [{ by: "bob@crm", action: "changed phone from 555-0100 to 555-0199" }],
    });
    expect((await reviewsOf(task.id)).find((r) => r.id === item.id)?.status).toBe("escalated");
  });

  it("a CRM that never answers: the approval is a 503 saying nothing was done (after 5 s, not never), and the item stays open", async () => {
    const { task, lease } = await started("CRM record, CRM hangs", "loops.crm_create", "abort_signal");
    await checkpointWorkItem(t.database, lease);
    crm.set("rec-loops-2", { version: 1, laterWrites: [] });
    await recordSubmission(t.database, { ...lease, operationId: "rec-loops-2", externalRecordId: "rec-loops-2", externalVersion: "1", reversible: true });
    await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: "rec-loops-2", externalVersion: "1" });
    await stop(task.id);
    const item = (await reviewsOf(task.id)).find((r) => r.kind === "approve_compensation")!;
    servicesHang = true;
    try {
      const started = Date.now();
      const res = await decide(item.id, { decision: "approve", reason: "undo", target: "rec-loops-2", expectedVersion: "1" });
      expect(Date.now() - started).toBeLessThan(9_000);
      expect(res.status).toBe(503);
      expect((await json(res)).error.message).toMatch(
        /loops\.crm_create did not say where the record stands \(no answer within 5000 ms\): nothing was done; try again/,
      );
    } finally {
      servicesHang = false;
    }
    expect((await reviewsOf(task.id)).find((r) => r.id === item.id)?.status).toBe("open");
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "rec-loops-2" } })).outcome).toBe("committed");
  }, 20_000);

  it("a compensation whose answer never comes: after 5 s the item is escalated as 'outcome unknown' (never 'failed'); approving again restores nothing twice", async () => {
    const { task, lease } = await started("CRM record, answer lost", "loops.crm_create", "abort_signal");
    await checkpointWorkItem(t.database, lease);
    crm.set("rec-loops-3", { version: 1, laterWrites: [] });
    await recordSubmission(t.database, { ...lease, operationId: "rec-loops-3", externalRecordId: "rec-loops-3", externalVersion: "1", reversible: true });
    await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: "rec-loops-3", externalVersion: "1" });
    await stop(task.id);
    const item = (await reviewsOf(task.id)).find((r) => r.kind === "approve_compensation")!;
    compensationAnswerLost = true;
    try {
      const started = Date.now();
      const res = await decide(item.id, { decision: "approve", reason: "undo", target: "rec-loops-3", expectedVersion: "1" });
      expect(Date.now() - started).toBeLessThan(9_000);
      expect(res.status, await res.clone().text()).toBe(200);
      const body = await json(res);
      expect(body).toMatchObject({ status: "escalated", compensation: { status: "unknown" } });
      expect(body.compensation.detail).toMatch(
        /loops\.crm_create gave no answer \(no answer within 5000 ms\): whether record rec-loops-3 was restored is not known/,
      );
    } finally {
      compensationAnswerLost = false;
    }
    // The service did restore it (its own log says so): the ledger does not claim otherwise, and the escalation says unknown.
    expect(crm.get("rec-loops-3")!.version).toBe(2);
    const escalated = await t.database.prisma.ledgerEvent.findFirstOrThrow({
      where: { taskId: task.id, type: "review_item.escalated" },
      orderBy: { seq: "desc" },
    });
    expect(escalated.reason).toMatch(/^compensation outcome unknown: /);
    expect(escalated.reason).not.toMatch(/failed/);
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "rec-loops-3" } })).outcome).toBe("committed");

    // Approving again asks the service first: the record moved on, so nothing is overwritten and it is not restored twice.
    const again = await decide(item.id, { decision: "approve", reason: "undo", target: "rec-loops-3", expectedVersion: "1" });
    expect(again.status, await again.clone().text()).toBe(409);
    expect((await json(again)).error.message).toMatch(/record rec-loops-3 is now at version 2, not 1 .*compensation changed it since; nothing was overwritten/);
    expect(crm.get("rec-loops-3")!.version).toBe(2);
    expect((await reviewsOf(task.id)).find((r) => r.id === item.id)?.status).toBe("escalated");
  }, 20_000);
});

describe("retry release of an orphaned resource", () => {
  it("still held: recorded, the item stays open; released: verified, the resource released and the item resolved", async () => {
    const { task, lease } = await started("hold a lock", "loops.take_lock", "abort_signal");
    await holdResource(t.database, { ...lease, type: "lock", handle: "lock-loops-1", actor: "worker:w" });
    await completeWorkItem(t.database, { ...lease, outcome: "completed" });
    lockHeld = true;
    await stop(task.id);
    const item = (await reviewsOf(task.id)).find((r) => r.kind === "orphaned_resource")!;
    expect(item).toBeDefined();

    const again = await call("POST", `/api/review-items/${item.id}/retry-release`, { token: tokens.admin });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await json(again)).toMatchObject({ released: false, status: "open" });

    lockHeld = false;
    const released = await call("POST", `/api/review-items/${item.id}/retry-release`, { token: tokens.admin });
    expect(await json(released)).toMatchObject({ released: true, status: "resolved" });
    expect((await t.database.prisma.resource.findFirstOrThrow({ where: { taskId: task.id } })).state).toBe("released");
    const steps = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "cancellation.step", reason: { contains: "retried by" } } });
    expect(steps.length).toBe(4); // cleanup + verify, twice
    expect((await call("POST", `/api/review-items/${item.id}/retry-release`, { token: tokens.admin })).status).toBe(409);
  });

  it("a lock service that never answers: the retry ends (each call bounded at 5 s), says the lock is still held and why, and the item stays open", async () => {
    const { task, lease } = await started("hold a lock, service hangs", "loops.take_lock", "abort_signal");
    await holdResource(t.database, { ...lease, type: "lock", handle: "lock-loops-2", actor: "worker:w" });
    await completeWorkItem(t.database, { ...lease, outcome: "completed" });
    lockHeld = true;
    await stop(task.id);
    const item = (await reviewsOf(task.id)).find((r) => r.kind === "orphaned_resource")!;
    servicesHang = true;
    try {
      const res = await call("POST", `/api/review-items/${item.id}/retry-release`, { token: tokens.admin });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({
        released: false,
        status: "open",
        detail: "lock lock-loops-2 is still held after the retry (cleanup: no answer within 5000 ms); release it by hand, then mark it handled",
      });
    } finally {
      servicesHang = false;
    }
    expect((await t.database.prisma.resource.findFirstOrThrow({ where: { taskId: task.id } })).state).toBe("orphaned");
    const steps = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: "cancellation.step", reason: { contains: "retried by" } } });
    expect(steps.map((e) => e.reason)).toEqual([
      expect.stringMatching(/^lock lock-loops-2, retried by .*: no answer within 5000 ms$/),
      expect.stringMatching(/^lock lock-loops-2, retried by .*: could not check: no answer within 5000 ms$/),
    ]);
  }, 25_000);
});
