import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { csvField } from "@/lib/audit";
import { executeCancellation } from "@/lib/cancellation/execute-cancellation";
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

/** An authoritative CRM: versioned records, archived only at the version you name. */
const crm = new Map<string, { version: number; archived: boolean }>();

let t: TestDatabase;
const tokens = { admin: "", agent: "" };
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-audit`, role })).token;
  appRegistry().register({
    name: "crm.audit_record",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "abort_signal",
    run: async () => null,
    async inspect(ref) {
      const r = crm.get(ref.operationId ?? "");
      return r ? { status: "committed", externalRecordId: ref.operationId, externalVersion: String(r.version) } : { status: "not_committed" };
    },
    async compensate(effect, expectedVersion) {
      const r = crm.get(effect.externalRecordId!)!;
      if (String(r.version) !== expectedVersion) return { status: "conflict", currentVersion: String(r.version), detail: "edited by someone else" };
      r.archived = true;
      r.version++;
      return { status: "compensated", detail: `archived record ${effect.externalRecordId}` };
    },
    describeEffect: (e) => `CRM record ${e.externalRecordId}`,
  });
});
afterAll(async () => t?.drop());

/** The agent created a CRM record, then the person pressed Stop: a compensation is proposed for review. */
async function recordCreatedThenStopped(recordId: string, ownerId: string, conversationId: string) {
  const task = await createTask(t.database, { title: `record, "${recordId}"`, ownerId, conversationId, riskLevel: "high" }, "agent:t");
  await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "external_action", toolName: "crm.audit_record", mechanism: "abort_signal", intentVersion: 1, commitsEffect: true },
    "agent:t",
  );
  const item = (await claimWorkItem(t.database, { workerId: "w", toolNames: ["crm.audit_record"] }))!;
  const lease = { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:w" };
  await checkpointWorkItem(t.database, lease);
  crm.set(recordId, { version: 1, archived: false });
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

describe("GET /api/audit", () => {
  it("lists every external effect with its evidence, the compensation and who approved it; open items are uncertain", async () => {
    const approved = await recordCreatedThenStopped("aud-1", "ada", "conv-audit-1");
    const open = await recordCreatedThenStopped("aud-2", "ada", "conv-audit-2");
    const decided = await call("POST", `/api/review-items/${approved.review.id}/decision`, {
      token: tokens.admin,
      body: { decision: "approve", reason: "customer asked", target: "aud-1", expectedVersion: "1" },
    });
    expect(decided.status).toBe(200);

    const res = await call("GET", `/api/audit?taskId=${approved.task.id}`, { token: tokens.admin });
    expect(res.status).toBe(200);
    const report = await json(res);
    expect(report.tasks).toHaveLength(1);
    expect(report.effects).toHaveLength(1);
    const effect = report.effects[0];
    expect(effect).toMatchObject({
      taskId: approved.task.id,
      ownerId: "ada",
      toolName: "crm.audit_record",
      operationId: "aud-1",
      externalRecordId: "aud-1",
      externalVersion: "1",
      outcome: "compensated",
    });
    const events = effect.decisions.map((d: { event: string }) => d.event);
    expect(events).toContain("review_item.opened");
    expect(events).toContain("review_item.approved");
    expect(effect.decisions.find((d: { event: string }) => d.event === "review_item.approved")).toMatchObject({
      reason: "customer asked",
      kind: "approve_compensation",
    });
    expect(report.compensations).toEqual([
      expect.objectContaining({ reviewItemId: approved.review.id, externalRecordId: "aud-1", boundToVersion: "1", status: "compensated" }),
    ]);
    expect(report.compensations[0].approvedBy).toBeTruthy();
    expect(report.uncertain).toEqual([]);

    // By user: both tasks; the undecided one is still open, so it is listed as uncertain.
    const byUser = await json(await call("GET", "/api/audit?ownerId=ada", { token: tokens.admin }));
    expect(byUser.tasks.map((x: { id: string }) => x.id).sort()).toEqual([approved.task.id, open.task.id].sort());
    expect(byUser.uncertain).toEqual([expect.objectContaining({ taskId: open.task.id, kind: "review_item", id: open.review.id })]);

    // By conversation, by tool, by time.
    const byConversation = await json(await call("GET", "/api/audit?conversationId=conv-audit-2", { token: tokens.admin }));
    expect(byConversation.effects.map((e: { operationId: string }) => e.operationId)).toEqual(["aud-2"]);
    const byTool = await json(await call("GET", "/api/audit?tool=crm.audit_record&ownerId=ada", { token: tokens.admin }));
    expect(byTool.effects).toHaveLength(2);
    const otherTool = await json(await call("GET", "/api/audit?tool=no.such_tool", { token: tokens.admin }));
    expect(otherTool).toMatchObject({ tasks: [], effects: [], compensations: [], uncertain: [] });
    const future = await json(
      await call("GET", `/api/audit?ownerId=ada&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: tokens.admin }),
    );
    expect(future.tasks).toEqual([]);
  });

  it("format=csv is a well-formed CSV download that contains the effects; format=json the same report", async () => {
    const { task } = await recordCreatedThenStopped("aud-3", "grace", "conv-audit-3");
    const res = await call("GET", `/api/audit?taskId=${task.id}&format=csv`, { token: tokens.admin });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="stopline-audit-task-.+\.csv"/);
    const text = await res.text();
    const rows = parseCsv(text);
    const header = rows[0];
    expect(header.slice(0, 3)).toEqual(["record", "task_id", "task_title"]);
    for (const row of rows) expect(row).toHaveLength(header.length);
    const effect = rows.find((r) => r[0] === "effect")!;
    expect(effect[header.indexOf("operation_id")]).toBe("aud-3");
    expect(effect[header.indexOf("task_title")]).toBe('record, "aud-3"'); // comma and quotes survive
    expect(effect[header.indexOf("external_version")]).toBe("1");
    expect(rows.some((r) => r[0] === "uncertain")).toBe(true);
    expect(rows.some((r) => r[0] === "compensation" && r[header.indexOf("external_version")] === "1")).toBe(true);

    const jsonRes = await call("GET", `/api/audit?taskId=${task.id}&format=json`, { token: tokens.admin });
    expect(jsonRes.headers.get("content-disposition")).toMatch(/\.json"/);
    const report = JSON.parse(await jsonRes.text());
    expect(report.effects[0]).toMatchObject({ operationId: "aud-3", externalRecordId: "aud-3" });
  });

  it("bad filters are a 400 naming the problem; no token is a 401", async () => {
    for (const q of ["from=yesterday", "format=xml", "colour=blue", `from=${new Date().toISOString()}&to=2000-01-01T00:00:00Z`, "taskId="]) {
      const res = await call("GET", `/api/audit?${q}`, { token: tokens.admin });
      expect(res.status, q).toBe(400);
      expect((await json(res)).error.code).toBeTruthy();
    }
    expect((await call("GET", "/api/audit")).status).toBe(401);
  });

  it("csvField neutralises formulas and quotes separators", () => {
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField(null)).toBe("");
  });
});

/** A strict RFC 4180 reader: fails the test on a malformed file. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== "") throw new Error("quote inside an unquoted field");
      quoted = true;
      i++;
      continue;
    }
    if (c === ",") {
      row.push(field);
      field = "";
      i++;
      continue;
    }
    if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i += 2;
      continue;
    }
    if (c === "\n") throw new Error("bare LF");
    field += c;
    i++;
  }
  if (quoted) throw new Error("unterminated quote");
  if (field !== "" || row.length) throw new Error("missing final CRLF");
  return rows;
}
