import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { executeCancellation } from "@/lib/cancellation/execute-cancellation";
import { getCancellationSummary } from "@/lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "@/lib/cancellation/steps/1-record-boundary";
import { checkpointWorkItem } from "@/lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";
import { completeWorkItem } from "@/lib/ledger/complete-work-item";
import { createTask } from "@/lib/ledger/create-task";
import { recordSubmission } from "@/lib/ledger/record-submission";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";
import { appRegistry } from "@/lib/runtime/app-registry";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/** A CRM that is the authoritative record: versioned records, archived only at the version you name. */
const crm = {
  records: new Map<string, { version: number; archived: boolean; name: string }>(),
  witness: [] as string[],
};

let t: TestDatabase;
const tokens = { admin: "", agent: "", worker: "" };
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-r`, role })).token;
  appRegistry().register({
    name: "crm.create_record",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "abort_signal",
    run: async () => null,
    async inspect(ref) {
      const r = crm.records.get(ref.operationId ?? "");
      return r ? { status: "committed", externalRecordId: ref.operationId, externalVersion: String(r.version) } : { status: "not_committed" };
    },
    async compensate(effect, expectedVersion) {
      const r = crm.records.get(effect.externalRecordId!)!;
      if (String(r.version) !== expectedVersion) return { status: "conflict", currentVersion: String(r.version), detail: "edited by someone else" };
      r.archived = true;
      r.version++;
      crm.witness.push(`archived ${effect.externalRecordId}`);
      return { status: "compensated", detail: `archived record ${effect.externalRecordId}` };
    },
    describeEffect: (e) => `CRM record ${e.externalRecordId}`,
  });
});
afterAll(async () => t?.drop());

/** An agent created a CRM record, then the person pressed Stop: a compensation is proposed. */
async function recordCreatedThenStopped(recordId: string) {
  const task = await createTask(t.database, { title: `record ${recordId}`, ownerId: "alice", riskLevel: "high" }, "agent:t");
  await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "external_action", toolName: "crm.create_record", mechanism: "abort_signal", intentVersion: 1, commitsEffect: true },
    "agent:t",
  );
  const item = (await claimWorkItem(t.database, { workerId: "w", toolNames: ["crm.create_record"] }))!;
  const lease = { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:w" };
  await checkpointWorkItem(t.database, lease);
  crm.records.set(recordId, { version: 1, archived: false, name: "Ada" });
  await recordSubmission(t.database, {
    ...lease,
    operationId: recordId,
    externalRecordId: recordId,
    externalVersion: "1",
    reversible: true,
    description: `CRM record ${recordId}`,
  });
  await completeWorkItem(t.database, { ...lease, outcome: "completed", externalRecordId: recordId, externalVersion: "1" });
  await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "agent:t" });
  await executeCancellation(t.database, task.id, { registry: appRegistry(), verifyDelayMs: 10, settleTimeoutMs: 200 });
  const review = (await json(await call("GET", `/api/review-items?taskId=${task.id}`, { token: tokens.admin }))).reviewItems[0];
  return { task, review };
}

describe("review decisions and compensation", () => {
  it("cancel after the record was created → a review item proposes compensation bound to the record and its version", async () => {
    const { task, review } = await recordCreatedThenStopped("rec-1");
    expect(review).toMatchObject({ kind: "approve_compensation", status: "open", proposal: { target: "rec-1", expectedVersion: "1", action: "compensate" } });
    expect(Date.parse(review.deadline)).toBeGreaterThan(Date.now());
    const summary = await getCancellationSummary(t.database, task.id);
    expect(summary.status).toBe("PARTIALLY_CANCELLED");
    expect(summary.user_message).toMatch(/One action took effect; a person decides by \d\d:\d\d UTC whether to reverse it\./);
    expect(crm.witness).not.toContain("archived rec-1"); // never executed automatically
  });

  it("POST /api/review-items/{id}/decision - approve executes the compensation and the summary shows it", async () => {
    const { task, review } = await recordCreatedThenStopped("rec-2");
    const res = await call("POST", `/api/review-items/${review.id}/decision`, {
      token: tokens.admin,
      body: { decision: "approve", reason: "customer asked", target: "rec-2", expectedVersion: "1" },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: "resolved", compensation: { status: "compensated" } });
    expect(crm.witness).toContain("archived rec-2");
    expect(crm.records.get("rec-2")!.archived).toBe(true);
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "rec-2" } });
    expect(effect.outcome).toBe("compensated");
    const summary = await getCancellationSummary(t.database, task.id);
    expect(summary.orphaned_side_effects).toEqual([]);
  });

  it("POST /api/review-items/{id}/decision - a record someone else changed: 409 with an explanation, escalated, nothing overwritten", async () => {
    const { review } = await recordCreatedThenStopped("rec-3");
    crm.records.get("rec-3")!.version = 2; // other staff edited it
    const res = await call("POST", `/api/review-items/${review.id}/decision`, {
      token: tokens.admin,
      body: { decision: "approve", reason: "ok", target: "rec-3", expectedVersion: "1" },
    });
    expect(res.status).toBe(409);
    expect((await json(res)).error.message).toMatch(
      /version 2, not 1 \(the version the agent's write produced\): someone else changed it; nothing was overwritten/,
    );
    expect(crm.records.get("rec-3")!.archived).toBe(false);
    expect(crm.witness).not.toContain("archived rec-3");
    const after = await t.database.prisma.reviewItem.findUniqueOrThrow({ where: { id: review.id } });
    expect(after.status).toBe("escalated");
    expect((await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "rec-3" } })).outcome).toBe("committed");
  });

  it("POST /api/review-items/{id}/decision - an approval that does not repeat the exact proposal is refused", async () => {
    const { review } = await recordCreatedThenStopped("rec-4");
    const res = await call("POST", `/api/review-items/${review.id}/decision`, {
      token: tokens.admin,
      body: { decision: "approve", reason: "ok", target: "rec-4", expectedVersion: "7" },
    });
    expect(res.status).toBe(409);
    expect((await json(res)).error.message).toMatch(/does not match the proposal/);
    expect(crm.records.get("rec-4")!.archived).toBe(false);
  });

  it("POST /api/review-items/{id}/decision - agents and workers cannot decide; a decided item cannot be decided again", async () => {
    const { review } = await recordCreatedThenStopped("rec-5");
    for (const token of [tokens.agent, tokens.worker]) {
      expect(
        (
          await call("POST", `/api/review-items/${review.id}/decision`, {
            token,
            body: { decision: "approve", reason: "model says approved: true", target: "rec-5", expectedVersion: "1" },
          })
        ).status,
      ).toBe(403);
    }
    expect(
      (await call("POST", `/api/review-items/${review.id}/decision`, { token: tokens.admin, body: { decision: "reject", reason: "keep it" } })).status,
    ).toBe(200);
    const again = await call("POST", `/api/review-items/${review.id}/decision`, {
      token: tokens.admin,
      body: { decision: "approve", reason: "changed my mind", target: "rec-5", expectedVersion: "1" },
    });
    expect(again.status).toBe(409);
    expect((await json(again)).error.message).toMatch(/^admin-r already rejected this at \d\d:\d\d UTC \(“.*”\)\. Your decision was not recorded\.$/);
    expect(crm.records.get("rec-5")!.archived).toBe(false);
  });

  it("GET /api/metrics/cancellations - counts generation and action cancellations separately", async () => {
    const res = await call("GET", "/api/metrics/cancellations", { token: tokens.agent });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toHaveProperty("generation_cancellations.count");
    expect(body).toHaveProperty("action_cancellations.stopped.count");
    expect(body.tasks.stopped).toBeGreaterThanOrEqual(5);
  });
});
