import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { requestCancellation } from "@/lib/cancellation/steps/1-record-boundary";
import { createTask } from "@/lib/ledger/create-task";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * Support staff find a person's tasks by who the person is to them — an account e-mail — not by the
 * opaque user id the ledger stores as the task's owner: GET /api/audit?user=… takes either.
 */
let t: TestDatabase;
let admin = "";
const ids = { uma: "", umaOther: "", agentTask: "", ulf: "" };
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  admin = (await createApiToken(t.database, { name: "admin-audit-user", role: "admin" })).token;
  for (const [id, email, name] of [
    ["usr_uma_1", "uma@example.test", "Uma"],
    ["usr_ulf_2", "ulf@example.test", "Ulf"],
  ]) {
    await t.database.prisma.user.create({ data: { id, email, name, role: "user", emailVerified: true } });
  }
  ids.uma = (await createTask(t.database, { title: "export for Uma", ownerId: "usr_uma_1", conversationId: "conv-uma-1" }, "agent:t")).id;
  ids.umaOther = (await createTask(t.database, { title: "order for Uma", ownerId: "usr_uma_1", conversationId: "conv-uma-2" }, "agent:t")).id;
  ids.ulf = (await createTask(t.database, { title: "export for Ulf", ownerId: "usr_ulf_2", conversationId: "conv-ulf" }, "agent:t")).id;
  await requestCancellation(t.database, { taskId: ids.umaOther, reason: "changed my mind", actor: "user:uma@example.test" });
  ids.agentTask = (await createTask(t.database, { title: "an agent's own task", ownerId: "crm-bot" }, "agent:t")).id;
  // Ulf's agent writes a CRM record and an email for a customer (issue 20, item 7): her e-mail is only in what it wrote.
  const crm = await scheduleWorkItem(
    t.database,
    {
      taskId: ids.ulf,
      kind: "external_action",
      toolName: "crm.create_record",
      mechanism: "rollback",
      commitsEffect: true,
      intentVersion: 1,
      input: { name: "Ada Lovelace", email: "Ada.Lovelace@example.com" },
    },
    "agent:t",
  );
  expect(crm.id).toBeTruthy();
});
afterAll(async () => t?.drop());

const audit = async (query: string) => {
  const res = await call("GET", `/api/audit?${query}`, { token: admin });
  return { status: res.status, body: await json(res) };
};
const taskIds = (report: { tasks: { id: string }[] }) => report.tasks.map((x) => x.id).sort();

describe("GET /api/audit?user=", () => {
  it("finds a person's tasks by account e-mail, in any case, and names the owner's e-mail", async () => {
    const { status, body } = await audit(`user=${encodeURIComponent("uma@example.test")}`);
    expect(status).toBe(200);
    expect(taskIds(body)).toEqual([ids.uma, ids.umaOther].sort());
    expect(body.tasks.every((x: { ownerEmail: string | null; ownerId: string }) => x.ownerEmail === "uma@example.test" && x.ownerId === "usr_uma_1")).toBe(
      true,
    );
    expect(taskIds((await audit(`user=${encodeURIComponent("  UMA@Example.TEST ")}`)).body)).toEqual([ids.uma, ids.umaOther].sort());
  });

  it("finds them by user id too, and an agent's tasks by its owner id (no e-mail)", async () => {
    expect(taskIds((await audit("user=usr_ulf_2")).body)).toEqual([ids.ulf]);
    const agent = (await audit("user=crm-bot")).body;
    expect(taskIds(agent)).toEqual([ids.agentTask]);
    expect(agent.tasks[0].ownerEmail).toBeNull();
  });

  it("finds a customer by the e-mail the agent wrote (a step's input), in any case — not only account owners", async () => {
    expect(taskIds((await audit(`user=${encodeURIComponent("ada.lovelace@example.com")}`)).body)).toEqual([ids.ulf]);
    expect(taskIds((await audit(`user=${encodeURIComponent("ADA.LOVELACE@EXAMPLE.COM")}`)).body)).toEqual([ids.ulf]);
    // a LIKE wildcard in the search is a character, not a pattern
    expect(taskIds((await audit(`user=${encodeURIComponent("%@example.com")}`)).body)).toEqual([]);
  });

  it("GET /api/tasks/{id} names the owner by e-mail, as the task list does (issue 20, item 7)", async () => {
    expect((await json(await call("GET", `/api/tasks/${ids.uma}`, { token: admin }))).ownerEmail).toBe("uma@example.test");
    expect((await json(await call("GET", `/api/tasks/${ids.agentTask}`, { token: admin }))).ownerEmail).toBeNull();
  });

  it("combines with the other filters; an unknown person matches nothing", async () => {
    expect(taskIds((await audit(`user=uma@example.test&conversationId=conv-uma-2`)).body)).toEqual([ids.umaOther]);
    expect(taskIds((await audit(`user=uma@example.test&ownerId=usr_ulf_2`)).body)).toEqual([]);
    expect((await audit(`user=${encodeURIComponent("nobody@example.test")}`)).body).toMatchObject({ tasks: [], effects: [], compensations: [], uncertain: [] });
  });

  it("the CSV has a row per task (even one that changed nothing outside), with the owner's e-mail and who stopped it, why", async () => {
    const res = await call("GET", `/api/audit?user=${encodeURIComponent("uma@example.test")}&format=csv`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain('filename="stopline-audit-user-uma_example.test.csv"');
    // A UTF-8 byte-order mark first, so that Excel reads € and accents right (issue 20, item 7).
    expect([...new Uint8Array(await res.clone().arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...lines] = (await res.text())
      .split("\r\n")
      .filter(Boolean)
      .map((line) => line.split(","));
    expect(header.slice(0, 6)).toEqual(["record", "task_id", "task_title", "owner_id", "owner_email", "conversation_id"]);
    const col = (name: string) => header.indexOf(name);
    const tasks = lines.filter((r) => r[0] === "task");
    expect(tasks.map((r) => r[col("task_id")]).sort()).toEqual([ids.uma, ids.umaOther].sort());
    for (const r of tasks) expect(r[col("owner_email")]).toBe("uma@example.test");
    const stopped = tasks.find((r) => r[col("task_id")] === ids.umaOther)!;
    expect(stopped[col("outcome")]).toBe("cancel_requested");
    expect(stopped[col("who")]).toBe("user:uma@example.test");
    expect(stopped[col("when")]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(stopped[col("detail")]).toBe("changed my mind");
    expect(tasks.find((r) => r[col("task_id")] === ids.uma)![col("who")]).toBe("");
  });

  it("an empty or overlong user is a 400 naming the field", async () => {
    for (const q of ["user=", "user=%20", `user=${"x".repeat(321)}`]) {
      const { status, body } = await audit(q);
      expect(status, q).toBe(400);
      expect(JSON.stringify(body.error), q).toContain("user");
    }
  });
});
