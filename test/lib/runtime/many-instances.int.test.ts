import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { headPosition, readEventsAfter, type EventPosition } from "../../../lib/events/read-events";
import { readEventStream } from "../../../lib/events/read-sse";
import { startJobServer, type JobServer } from "../../../lib/conformance/http-job-server";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";

/**
 * Stopline scaled out on one PostgreSQL database: 3 app processes and 4 worker processes (test/support/instance.ts),
 * each a separate OS process with its own pool, live view and engine. Tasks are created through one app, stopped
 * through another, and the ledger is read over SSE from a third, resumed on a fourth connection elsewhere.
 */
const SCRIPT = path.resolve(import.meta.dirname, "../../../test/support/instance.ts");
const onPostgres = testEngine() === "postgres";

let t: TestDatabase;
let jobs: JobServer;
let token: string;
const processes = new Map<string, ChildProcess>();
const apps: Record<string, string> = {};

function start(role: "app" | "worker", name: string): Promise<void> {
  // vitest's fork workers carry NODE_CHANNEL_FD; a grandchild inheriting it waits on an IPC channel that is not there
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, role, name], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...env,
      DATABASE_URL: t.url,
      MULTI_JOB_URL: jobs.url,
      STOPLINE_PROCESS_NAME: name,
      // Short leases so that a takeover after a SIGKILL happens within the test's patience.
      STOPLINE_ENGINE_LEASE_MS: "1500",
      STOPLINE_MAINTENANCE_LEASE_MS: "1500",
      STOPLINE_MAINTENANCE_MS: "250",
      STOPLINE_VERIFY_DELAY_MS: "50",
    },
  });
  processes.set(name, child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${name} exited ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const message = JSON.parse(line) as { url?: string; ready?: boolean };
      if (message.url) apps[name] = message.url;
      clearTimeout(timer);
      resolve();
    });
  });
}

async function api(app: string, method: "GET" | "POST", url: string, body?: unknown) {
  const res = await fetch(`${apps[app]}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} on ${app} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const row = (taskId: string) => t.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } });
const items = (taskId: string) => t.database.prisma.workItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An SSE reader on one app: collects ledger events (seq and type) until stopped. */
function subscribe(app: string, lastEventId: number) {
  const abort = new AbortController();
  const got: { seq: number; type: string; taskId: string | null }[] = [];
  const done = (async () => {
    const res = await fetch(`${apps[app]}/api/events`, {
      headers: { authorization: `Bearer ${token}`, "last-event-id": String(lastEventId) },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    try {
      for await (const m of readEventStream(res.body!)) {
        if (m.event !== "ledger") continue;
        const e = JSON.parse(m.data) as { seq: number; type: string; taskId: string | null };
        expect(Number(m.id)).toBe(e.seq);
        got.push({ seq: e.seq, type: e.type, taskId: e.taskId });
      }
    } catch {
      /* stopped */
    }
  })();
  return { got, stop: async () => (abort.abort(), done) };
}

describe.skipIf(!onPostgres)("many instances on one PostgreSQL database", () => {
  beforeAll(async () => {
    t = await createTestDatabase();
    jobs = await startJobServer({ cancelMode: "honour" });
    token = (await createApiToken(t.database, { name: "multi-agent", role: "agent" })).token;
    await Promise.all([
      start("app", "app-a"),
      start("app", "app-b"),
      start("app", "app-c"),
      start("worker", "worker-1"),
      start("worker", "worker-2"),
      start("worker", "worker-3"),
      start("worker", "worker-4"),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const child of processes.values()) child.kill("SIGKILL");
    await jobs?.close();
    await t?.drop();
  });

  it("create on one app, Stop on another, SSE on a third resumed on a fourth: every event once and in order; children stopped in worker processes, one provider cancel each; an app SIGKILLed mid-cancellation is finished by another", async () => {
    const from: EventPosition = await headPosition(t.database);
    const firstStream = subscribe("app-c", from.seq);

    // 1. Through app A: a task with 8 background jobs (provider cancel) and 20 children no worker serves.
    const task = await api("app-a", "POST", "/api/tasks", { title: "research, scaled out" });
    for (let i = 0; i < 8; i++)
      await api("app-a", "POST", `/api/tasks/${task.id}/work-items`, {
        kind: "remote_tool",
        toolName: "multi.job",
        mechanism: "provider_cancel",
        intentVersion: 1,
        input: { steps: 10_000, stepMs: 50 },
      });
    for (let i = 0; i < 20; i++)
      await api("app-a", "POST", `/api/tasks/${task.id}/work-items`, {
        kind: "local_worker",
        toolName: "multi.unserved",
        mechanism: "abort_signal",
        intentVersion: 1,
      });
    const running = await waitFor(async () => {
      const list = (await items(task.id)).filter((i) => i.toolName === "multi.job");
      return list.every((i) => i.status === "submitted" && i.providerRef) ? list : null;
    }, "the 8 jobs to be submitted by the worker processes");
    expect(new Set(running.map((i) => i.leaseOwner)).size).toBeGreaterThan(1); // spread over several worker processes
    for (const i of running) expect(i.leaseOwner).toMatch(/^worker-\d$/);

    // 2. Stop through app B.
    await api("app-b", "POST", `/api/tasks/${task.id}/cancel`, { reason: "changed my mind" });
    await waitFor(async () => (await row(task.id)).stage === "cancelled", "the task to settle", 60_000);
    const stopped = await items(task.id);
    for (const i of stopped.filter((x) => x.toolName === "multi.job")) {
      expect(i.status).toBe("cancelled");
      expect(jobs.job(i.providerRef!)!.status).toBe("cancelled");
      expect(jobs.requests(`POST /jobs/${i.providerRef}/cancel`), `provider cancels of ${i.providerRef}`).toBe(1);
    }
    expect(stopped.filter((x) => x.toolName === "multi.unserved").every((x) => x.status === "cancelled" && x.startedAt === null)).toBe(true);

    // The SSE reader on app C drops; it resumes with Last-Event-ID on app B.
    await new Promise((r) => setTimeout(r, 300));
    await firstStream.stop();
    expect(firstStream.got.length).toBeGreaterThan(0);
    const secondStream = subscribe("app-b", firstStream.got.at(-1)!.seq);

    // 3. Through app A: cooperative children in the worker processes, and queued ones; Stop through app A, whose
    //    process is killed (SIGKILL) right after the boundary is recorded — while its engine is working.
    const second = await api("app-a", "POST", "/api/tasks", { title: "the instance that dies" });
    for (let i = 0; i < 6; i++)
      await api("app-a", "POST", `/api/tasks/${second.id}/work-items`, {
        kind: "local_worker",
        toolName: "multi.cooperative",
        mechanism: "abort_signal",
        intentVersion: 1,
      });
    for (let i = 0; i < 50; i++)
      await api("app-a", "POST", `/api/tasks/${second.id}/work-items`, {
        kind: "local_worker",
        toolName: "multi.unserved",
        mechanism: "abort_signal",
        intentVersion: 1,
      });
    await waitFor(
      async () => (await items(second.id)).filter((i) => i.toolName === "multi.cooperative" && i.status === "running").length === 6,
      "6 cooperative children running",
    );
    await api("app-a", "POST", `/api/tasks/${second.id}/cancel`, { reason: "stop, then crash" });
    processes.get("app-a")!.kill("SIGKILL");
    await waitFor(async () => (await row(second.id)).stage === "cancelled", "another process to finish the cancellation", 60_000);
    const afterCrash = await items(second.id);
    expect(afterCrash.filter((i) => i.toolName === "multi.cooperative").every((i) => i.status === "cancelled")).toBe(true);
    expect(afterCrash.filter((i) => i.toolName === "multi.unserved").every((i) => i.status === "cancelled" && i.startedAt === null)).toBe(true);
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: second.id, type: "cancellation.planned" } })).toBe(1);

    // 4. Every event after the starting point reached the reader exactly once, in ledger order, across instances.
    await new Promise((r) => setTimeout(r, 500));
    await secondStream.stop();
    const received = [...firstStream.got, ...secondStream.got];
    const ledger: number[] = [];
    for (let cursor = from; ; ) {
      const { events } = await readEventsAfter(t.database, cursor, { limit: 1_000 });
      ledger.push(...events.map((e) => e.event.seq));
      if (events.length < 1_000) break;
      cursor = events.at(-1)!.position;
    }
    const upTo = ledger.indexOf(received.at(-1)!.seq);
    expect(upTo).toBeGreaterThan(0);
    expect(received.map((e) => e.seq)).toEqual(ledger.slice(0, upTo + 1));
    expect(new Set(received.map((e) => e.seq)).size).toBe(received.length);
    expect(received.some((e) => e.taskId === second.id && e.type === "task.cancelled")).toBe(true);
  }, 300_000); // ~55 s on a quiet 2-core machine; 150 s seen at load 10
});
