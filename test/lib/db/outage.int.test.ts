import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as authPost } from "../../../app/api/auth/[...all]/route";
import { seedDemoAccounts } from "../../../lib/auth/seed-demo-accounts";
import { createApiToken } from "../../../lib/auth/tokens";
import { call, json } from "../../support/api-client";
import { startTcpProxy, type TcpProxy } from "../../support/tcp-proxy";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { openDatabase, type Database } from "../../../lib/db/client";

/**
 * Issue 11, item 11: while the database is unavailable, the API answers 503 with Retry-After and a message
 * that says so — never a 500 — and every Stop it acknowledged before (202) is still recorded afterwards.
 *
 * The outage is real: on PostgreSQL the server's connections go through a TCP proxy that is cut (open
 * connections reset, new ones refused) and later restored; on the embedded SQLite database another process
 * holds the database's write lock (BEGIN EXCLUSIVE, as a backup or a stuck tool would) and later lets go.
 */
const engine = testEngine();
let t: TestDatabase;
let server: Database;
let proxy: TcpProxy | undefined;
let locker: ChildProcess | undefined;
let agent = "";

beforeAll(async () => {
  t = await createTestDatabase();
  let url = t.url;
  if (engine === "postgres") {
    const u = new URL(t.url);
    proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.port = String(proxy.port);
    url = u.toString();
  }
  server = openDatabase(url, { sqlite: { lockWaitMs: 800 }, postgres: { connectionTimeoutMs: 2_000 } });
  process.env.DATABASE_URL = url;
  (globalThis as unknown as { stoplineDb?: Database }).stoplineDb = server;
  agent = (await createApiToken(server, { name: "agent-outage", role: "agent" })).token;
  await seedDemoAccounts(server);
});
afterAll(async () => {
  locker?.kill("SIGKILL");
  await server?.close();
  await proxy?.close();
  await t?.drop();
});

async function outageBegins() {
  if (proxy) return proxy.cut();
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const file = t.url.slice("file:".length);
  locker = spawn(
    process.execPath,
    [
      "-e",
      `
    const db = require("better-sqlite3")(${JSON.stringify(file)});
    db.exec("BEGIN EXCLUSIVE");
    console.log("locked");
    process.stdin.on("data", () => { db.exec("ROLLBACK"); process.exit(0); });
  `,
    ],
    { env, stdio: ["pipe", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve) => locker!.stdout!.on("data", (d) => String(d).includes("locked") && resolve()));
}
async function outageEnds() {
  if (proxy) return proxy.restore();
  locker!.stdin!.write("go\n");
  await new Promise((resolve) => locker!.once("exit", resolve));
}

const stop = (taskId: string) => call("POST", `/api/tasks/${taskId}/cancel`, { token: agent, body: { reason: "outage test" } });

describe(`database outage (${engine})`, () => {
  it("503 with Retry-After and a message while the database is away — never a 500 — and nothing acknowledged is lost", async () => {
    const tasks = [];
    for (let i = 0; i < 6; i++) tasks.push(await json(await call("POST", "/api/tasks", { token: agent, body: { title: `outage ${i}` } })));
    const acknowledged = new Map<string, string>();
    for (const task of tasks.slice(0, 3)) {
      const res = await stop(task.id);
      expect(res.status).toBe(202);
      acknowledged.set(task.id, (await json(res)).boundary.cancelRequestedAt);
    }

    await outageBegins();
    const signIn = () =>
      authPost(
        new Request("http://localhost:3000/api/auth/sign-in/email", {
          method: "POST",
          headers: { "content-type": "application/json", origin: "http://localhost:3000" },
          body: JSON.stringify({ email: "user@stopline.local", password: "stopline-user-demo" }),
        }),
      );
    const during = await Promise.all([
      ...tasks.slice(3).map((task) => stop(task.id)),
      call("POST", "/api/tasks", { token: agent, body: { title: "during the outage" } }),
      signIn(), // Better Auth's own endpoint (it would answer a bare 500)
    ]);
    for (const res of during) {
      const body = await res.clone().json();
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(body.error).toMatchObject({ code: "unavailable", details: { dependency: "database" } });
      expect(body.error.message).toMatch(/^the database is not available right now: .+\. This request was not confirmed — try again in a few seconds$/);
    }
    const read = await call("GET", `/api/tasks/${tasks[0].id}`, { token: agent });
    expect([200, 503], "a read is answered or refused as unavailable, not a 500").toContain(read.status);

    await outageEnds();
    expect((await signIn()).status, "signing in works again").toBe(200);
    // The client retries what was not confirmed (Retry-After); Stop is idempotent.
    for (const task of tasks.slice(3)) {
      const deadline = Date.now() + 15_000;
      let res = await stop(task.id);
      while (res.status === 503 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        res = await stop(task.id);
      }
      expect(res.status).toBe(202);
    }

    // Read back on a connection that never went through the outage.
    for (const task of tasks) {
      const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
      expect(row.stage).toBe("cancel_requested");
      if (acknowledged.has(task.id)) expect(row.cancelRequestedAt!.toISOString()).toBe(acknowledged.get(task.id));
      expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "task.cancel_requested" } })).toBe(1);
    }
  }, 60_000);
});
