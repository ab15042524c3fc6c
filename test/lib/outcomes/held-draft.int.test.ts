import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryAudit } from "../../../lib/audit/query-audit";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { demoTools } from "../../../lib/demo/tools";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { retryRelease } from "../../../lib/review/retry-release";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";

/**
 * Issue 20, item 1: "Discarded" while the service still holds it. An email is stopped after its draft was created at
 * the mailer, and the mailer cannot be reached to discard it (the network in between answers 503): the draft stays at
 * the service (its witness log: draft_created, no draft_discarded) and the engine records the mail_draft resource
 * ORPHANED. The child's outcome words — summary, its user message, the audit — may not say "discarded" then; once an
 * operator's "Retry release" discarded it (witnessed), they may.
 *
 * The order at the mailer is made deterministic by a forwarding proxy between the tools and the demo services: the
 * draft request is held until the Stop is recorded, and the engine's fence waits until the draft exists (otherwise
 * the fence would withdraw the draft before it was created, and nothing would be left to hold).
 */
let t: TestDatabase;
let demo: DemoServer;
let proxy: http.Server;
let proxyUrl: string;
let engine: CancellationEngine;
let registry: ToolRegistry;

let discardDown = true;
let draftArrived: () => void = () => {};
const draftSeen = new Promise<void>((r) => (draftArrived = r));
let letDraftThrough: () => void = () => {};
const draftMayPass = new Promise<void>((r) => (letDraftThrough = r));
let draftAnswered: () => void = () => {};
const draftDone = new Promise<void>((r) => (draftAnswered = r));

function startProxy(target: string): Promise<void> {
  proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url ?? "/";
    const isDraft = req.method === "POST" && path === "/mailer/drafts";
    if (req.method === "POST" && /^\/mailer\/drafts\/[\w-]+\/discard$/.test(path) && discardDown) {
      res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "mailer unreachable" }));
      return;
    }
    if (isDraft) draftArrived(), await draftMayPass;
    if (req.method === "POST" && path === "/mailer/fence") await draftDone;
    // Forwarded whatever the caller does meanwhile (an aborted caller does not withdraw a request already sent).
    const answer = await fetch(`${target}${path}`, {
      method: req.method,
      headers: { "content-type": "application/json" },
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    const body = await answer.text();
    if (isDraft) draftAnswered();
    if (!res.destroyed) res.writeHead(answer.status, { "content-type": "application/json" }).end(body);
  });
  return new Promise((resolve) =>
    proxy.listen(0, "127.0.0.1", () => {
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  t = await createTestDatabase();
  demo = await startDemoServer({ file: ":memory:" });
  await startProxy(demo.url);
  registry = new ToolRegistry();
  for (const tool of demoTools({ baseUrl: proxyUrl, pollMs: 20 })) registry.register(tool);
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 20, settleTimeoutMs: 1_000, reconcileIntervalMs: 200 }).start(200);
});
afterAll(async () => {
  await engine?.stop();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await demo?.close();
  await t?.drop();
});

const until = async <T>(probe: () => Promise<T>, what: string, ms = 20_000): Promise<NonNullable<T>> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe(`issue 20 item 1: a child's outcome words may not claim a cleanup its resources contradict (${testEngine()})`, () => {
  it("an email stopped after its draft was created, the draft not discardable: nobody reads 'discarded' until the mailer witnessed it", async () => {
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 2, leaseMs: 10_000 }).start();
    try {
      const task = await createTask(t.database, { title: "email Ada", ownerId: "ada" }, "agent:test");
      const item = await scheduleWorkItem(
        t.database,
        {
          taskId: task.id,
          kind: "external_action",
          toolName: "mailer.send_email",
          mechanism: "provider_cancel",
          intentVersion: 1,
          commitsEffect: true,
          input: { to: "ada@example.com", subject: "Welcome", body: "Hello" },
        },
        "agent:test",
      );
      await draftSeen; // the draft request is at the mailer's door
      await requestCancellation(t.database, { taskId: task.id, reason: "changed my mind", actor: "user:ada" });
      letDraftThrough();

      const settled = await until(async () => {
        const row = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
        const resource = await t.database.prisma.resource.findFirst({ where: { workItemId: item.id } });
        return row.settledAt && resource && resource.state !== "held" && resource.state !== "release_requested" ? { row, resource } : null;
      }, "the Stop to settle with the draft's release decided");
      // The mailer's own record: the draft exists and was never discarded (nor sent).
      const mailer = () => witnessLog(demo.db, "mailer").map((w) => w.action);
      expect(mailer()).toContain("draft_created");
      expect(mailer()).not.toContain("draft_discarded");
      expect(mailer()).not.toContain("email_sent");
      expect(settled.resource).toMatchObject({ type: "mail_draft", state: "orphaned" });

      // What people read: never "discarded" while the mailer holds the draft.
      const summary = await getCancellationSummary(t.database, task.id);
      const call = summary.tool_calls.find((c) => c.tool_name === "mailer.send_email")!;
      expect(call.outcome.label).not.toMatch(/discarded before it took effect/);
      expect(call.outcome.label).toBe(
        "stopped before it took effect — but its draft could not be discarded at the service; an operator has been asked to handle it",
      );
      expect(summary.user_message).not.toMatch(/draft discarded/i);
      expect(summary.user_message).toContain("One draft stopped before it took effect, but the service still holds it: it could not be discarded.");
      expect(summary.orphaned_resources).toEqual([expect.objectContaining({ type: "mail_draft" })]);
      const audit = await queryAudit(t.database, { taskId: task.id });
      expect(audit.tasks[0].outcomes.find((o) => o.toolName === "mailer.send_email")!.label).toBe(call.outcome.label);

      // An operator retries the release once the mailer answers again: now the mailer witnessed the discard, and the words may say so.
      discardDown = false;
      const review = await t.database.prisma.reviewItem.findFirstOrThrow({ where: { taskId: task.id, kind: "orphaned_resource" } });
      await retryRelease(t.database, registry, { id: "olivia", name: "olivia@example.com", role: "operator", kind: "person" }, review.id, {
        verifyDelayMs: 20,
      });
      expect(mailer()).toContain("draft_discarded");
      const after = await getCancellationSummary(t.database, task.id);
      expect(after.tool_calls.find((c) => c.tool_name === "mailer.send_email")!.outcome.label).toBe("stopped — its draft was discarded before it took effect");
    } finally {
      await pool.stop();
    }
  }, 60_000);
});
