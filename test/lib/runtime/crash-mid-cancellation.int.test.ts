import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import type { CancellationSummary } from "../../../lib/cancellation/summarize";
import { openDemoStore, witnessLog, type DemoDb } from "../../../lib/demo/store";
import { bindCalls, expectWitnessConsistent, witnessFor } from "../../../lib/conformance/witness-check";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";

/**
 * Issue 19 §2, with real process kills: the app (its server process: engine, in-process worker pool, demo services —
 * test/support/app-process.ts) runs a task whose children are the demo services' work; a person presses Stop; right
 * after the Stop's 202 the app's whole process group is SIGKILLed — mid-cancellation, with the children's leases still
 * held by the dead process's workers — and the app is started again on the same ledger and the same demo store.
 *
 * What the person finally reads is held to the demo services' witness logs: nothing was re-run; no child is called
 * "still running" (its process is dead); each export's lock and temp file are verified released (the service says so)
 * or reported orphaned with a review item; and the Stop does not settle as CANCELLATION_FAILED on a guess.
 */
const SCRIPT = path.resolve(import.meta.dirname, "../../../test/support/app-process.ts");
const provider = testEngine();

let t: TestDatabase;
let token: string;
let dir: string;
let demoPort: number;
let app: { proc: ChildProcess; url: string; exited: Promise<unknown> } | null = null;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the app as its own process group (pgid = its pid) and waits until it answers. */
function startApp(): Promise<NonNullable<typeof app>> {
  // vitest's fork workers carry NODE_CHANNEL_FD; a grandchild inheriting it waits on an IPC channel that is not there
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const proc = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      DATABASE_URL: t.url,
      STOPLINE_DEMO_PORT: String(demoPort),
      STOPLINE_DEMO_DB: path.join(dir, "demo-services.db"),
      STOPLINE_MAINTENANCE_MS: "250",
      STOPLINE_MAINTENANCE_LEASE_MS: "1500",
      STOPLINE_ENGINE_LEASE_MS: "1500",
      STOPLINE_VERIFY_DELAY_MS: "50",
      STOPLINE_WORKERS: "8",
      // The export runner looks at its export once a minute: after the Stop, it has not yet seen the service's
      // "cancelled" when the process dies — the children are still `cancelling` under the dead process's leases.
      STOPLINE_DEMO_POLL_MS: "60000",
    },
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
    if (process.env.CRASH_TEST_STDERR) process.stderr.write(d);
  });
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start; stderr:\n${stderr}`)), 90_000);
    proc.once("exit", (code, signal) => reject(new Error(`the app exited (${code ?? signal}) before it was ready; stderr:\n${stderr}`)));
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const message = JSON.parse(line) as { url?: string };
      if (!message.url) return;
      clearTimeout(timer);
      app = { proc, url: message.url, exited };
      resolve(app);
    });
  });
}

/** SIGKILL of the app's whole process group: no clean-up, no last heartbeat, no last ledger write. */
async function killApp() {
  const running = app!;
  app = null;
  process.kill(-running.proc.pid!, "SIGKILL");
  await running.exited;
}

async function api<T = any>(method: "GET" | "POST", url: string, body?: unknown, expectStatus?: number): Promise<T> {
  const res = await fetch(`${app!.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (expectStatus ? res.status !== expectStatus : !res.ok) throw new Error(`${method} ${url} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const items = (taskId: string) => t.database.prisma.workItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });

beforeAll(async () => {
  t = await createTestDatabase();
  token = (await createApiToken(t.database, { name: "crash-agent", role: "agent" })).token;
  dir = mkdtempSync(path.join(os.tmpdir(), "stopline-crash-"));
  demoPort = await freePort();
}, 60_000);

afterAll(async () => {
  if (app) await killApp();
  await t?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`the app's process group SIGKILLed right after a Stop's 202, then started again (${provider})`, () => {
  it("the Stop settles with the truth the services witnessed: nothing re-run, no dead child called still running, each export's lock released or reported orphaned, no early CANCELLATION_FAILED", async () => {
    await startApp();

    // A task with the demo services' children: three commitments that complete before the Stop (an order, a CRM
    // record, an email), two long exports (each holds a lock and a temp file at the service) and a long generation.
    const task = await api("POST", "/api/tasks", { title: "quarterly numbers, crash mid-cancellation" });
    const schedule = (toolName: string, kind: string, mechanism: string, commitsEffect: boolean, input: unknown) =>
      api("POST", `/api/tasks/${task.id}/work-items`, { kind, toolName, mechanism, commitsEffect, intentVersion: 1, input });
    await schedule("shop.create_order", "external_action", "provider_cancel", true, { items: [{ sku: "chair", quantity: 1 }] });
    await schedule("crm.create_record", "external_action", "provider_cancel", true, { name: "Ada Lovelace", email: "ada@example.com" });
    await schedule("mailer.send_email", "external_action", "provider_cancel", true, { to: "ada@example.com", subject: "Numbers", body: "Attached." });
    await schedule("reports.export_report", "remote_tool", "provider_cancel", false, { rows: 100_000, rowMs: 20 });
    await schedule("reports.export_report", "remote_tool", "provider_cancel", false, { rows: 100_000, rowMs: 20 });
    await schedule("inference.generate", "model_request", "abort_signal", false, { prompt: "summarise the quarter", words: 2_000, wordMs: 100 });

    // Driven by the ledger: the commitments ended, each export holds its lock and temp file, the generation streams.
    await waitFor(
      async () => {
        const list = await items(task.id);
        const resources = await t.database.prisma.resource.count({ where: { taskId: task.id, type: { in: ["lock", "temp_file"] } } });
        return (
          list.filter((i) => i.commitsEffect).every((i) => i.status === "completed") &&
          list.filter((i) => !i.commitsEffect).every((i) => i.status === "running") &&
          resources === 4
        );
      },
      "the commitments to complete and the exports and the generation to run",
      30_000,
    ).catch(async (error) => {
      const list = await items(task.id);
      const held = await t.database.prisma.resource.findMany({ where: { taskId: task.id } });
      throw new Error(
        `${(error as Error).message}: ${list.map((i) => `${i.toolName}=${i.status}${i.error ? ` (${i.error})` : ""}`).join(", ")}; resources: ${held.map((r) => `${r.type}=${r.state}`).join(", ")}`,
      );
    });

    // Stop; the app's whole process group dies right after the 202.
    // Stop; the app's whole process group dies mid-cancellation: once the services acknowledged both exports' cancels
    // (the engine then waits for their workers to report, which they never will).
    const stop = await api("POST", `/api/tasks/${task.id}/cancel`, { reason: "stop, then the machine dies" }, 202);
    expect(stop).toBeTruthy();
    await waitFor(
      async () => {
        const exports = (await items(task.id)).filter((i) => i.toolName === "reports.export_report");
        return exports.every((i) => i.status === "cancelling" && i.cancelWithdrawnAt !== null);
      },
      "both exports' cancels to be acknowledged",
      30_000,
    );
    await killApp();

    // Started again: same ledger, same demo store, same demo port (the services come back with the app).
    await startApp();
    const started = Date.now();
    const summary = await waitFor(
      async () => {
        const s = await api<CancellationSummary>("GET", `/api/tasks/${task.id}/cancellation`);
        return s.status === "IN_PROGRESS" ? null : s;
      },
      "the Stop to settle after the restart",
      90_000,
    );
    const settledAfterMs = Date.now() - started;

    const list = await items(task.id);
    const resources = await t.database.prisma.resource.findMany({ where: { taskId: task.id } });
    const reviews = await t.database.prisma.reviewItem.findMany({ where: { taskId: task.id } });
    const demoDb: DemoDb = openDemoStore(path.join(dir, "demo-services.db"));
    try {
      const log = witnessLog(demoDb);
      const generations = log.filter((w) => w.action === "generation_started").map((w) => w.subject!);
      const calls = bindCalls(demoDb, list, { generations });
      const witness = witnessFor(log, calls);
      const context = `summary:\n${JSON.stringify({ ...summary, cancelled_tool_calls: undefined }, null, 2)}\nledger: ${list.map((i) => `${i.toolName}=${i.status}`).join(", ")}\nresources: ${resources.map((r) => `${r.type}=${r.state}`).join(", ")}\nwitness: ${witness.map((w) => `${w.service}:${w.action}`).join(", ")}\nsettled ${settledAfterMs} ms after the restart`;

      const recovered = await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "lease.expired" } });
      console.log(
        `[crash-mid-cancellation ${provider}] settled ${settledAfterMs} ms after the restart; ${recovered} lease(s) of the dead process recovered; ${summary.status}: ${summary.user_message}`,
      );

      // Nothing re-run: one order, one record, one email, each export and the generation started once.
      const count = (action: string) => witness.filter((w) => w.action === action).length;
      expect(count("order_created"), context).toBe(1);
      expect(count("record_created"), context).toBe(1);
      expect(count("email_sent"), context).toBe(1);
      expect(count("export_started"), context).toBe(2);
      expect(generations, context).toHaveLength(1);
      expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "work_item.claimed" } }), context).toBe(6);

      // No child is "still running" when the process that ran it is dead: at settlement none is being stopped, and
      // nothing the person reads says otherwise.
      for (const c of summary.tool_calls)
        expect(["stopping", "could_not_stop_running", "running"], `${c.tool_name}: ${c.outcome.label}\n${context}`).not.toContain(c.outcome.kind);
      expect(
        list.filter((i) => ["running", "submitted", "cancelling", "unrecoverable"].includes(i.status)),
        context,
      ).toEqual([]);
      expect(summary.user_message, context).not.toMatch(/still running|not stopped yet|carried on/i);
      expect(summary.held_resources, context).toEqual([]);
      expect(summary.status, context).not.toBe("CANCELLATION_FAILED");

      // Each export's lock and temp file: verified released — and the service witnessed the release — or orphaned
      // and in front of a person.
      expect(
        resources.filter((r) => r.type === "lock" || r.type === "temp_file"),
        context,
      ).toHaveLength(4);
      for (const r of resources) {
        expect(["released", "orphaned"], `${r.type} ${r.handle}\n${context}`).toContain(r.state);
        if (r.state === "orphaned")
          expect(
            reviews.some((v) => v.resourceId === r.id),
            `review for ${r.handle}\n${context}`,
          ).toBe(true);
      }
      for (const exportId of new Set(resources.filter((r) => r.type === "lock").map((r) => r.handle))) {
        const released = resources.filter((r) => r.type === "lock" && r.handle === exportId).every((r) => r.state === "released");
        expect(
          witness.some((w) => w.subject === exportId && w.action === "lock_released"),
          `${exportId}\n${context}`,
        ).toBe(released);
      }

      // And the whole summary agrees with the witness (the fault matrix's checker).
      expectWitnessConsistent({ summary, witness, calls, ledger: { workItems: list, resources } });
    } finally {
      demoDb.close();
    }
  }, 240_000);
});
