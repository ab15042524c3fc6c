import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { isTerminalItem, Mechanism, WorkItemKind } from "../../../lib/ledger/states";
import { CREATE_ORDER_TOOL, HaltPoint, startOrderService, type OrderService } from "../../support/http-order-service";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";

/**
 * Invariants 5 and 8 with real processes: a worker process is SIGKILLed at a chosen point of an external action
 * (`shop.create_order` against a real HTTP order service that is the authoritative record), then a restarted
 * worker process resumes from what the ledger recorded. Whatever the crash point, the service ends with at most
 * the one order the work item asked for, and an action that may have been sent is reconciled through inspect(),
 * never re-run.
 */

const LEASE_MS = 1_500;
const CRASH_WORKER = path.resolve(import.meta.dirname, "../../../test/support/crash-worker.ts");
const provider = testEngine();

let t: TestDatabase;
let service: OrderService;
const started = new Set<WorkerProcess>();

// A fresh ledger and a fresh order service per test: a leftover item of one scenario can never be claimed by the next.
beforeEach(async () => {
  [t, service] = await Promise.all([createTestDatabase(), startOrderService()]);
});
afterEach(async () => {
  for (const w of started) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill("SIGKILL");
  await Promise.all([...started].map((w) => w.exited));
  started.clear();
  await service?.close();
  await t?.drop();
});

// ---- worker processes --------------------------------------------------------------------------------

type Message = { event: string; workerId: string; workItemId?: string; orderId?: string; outcome?: string; [k: string]: unknown };

interface WorkerProcess {
  readonly workerId: string;
  readonly proc: ChildProcess;
  readonly messages: Message[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first message with this event (already received or still to come); rejects if the process exits first. */
  next(event: string, timeoutMs?: number): Promise<Message>;
  /** SIGKILL: no clean-up, no last heartbeat, no last ledger write. */
  kill(): Promise<void>;
  /** SIGTERM: the worker stops claiming and exits. */
  stop(): Promise<void>;
}

function spawnWorker(halt: HaltPoint, workerId: string): WorkerProcess {
  // vitest's fork workers carry NODE_CHANNEL_FD; a grandchild inheriting it waits on an IPC channel that is not there
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const proc = spawn(process.execPath, ["--import", "tsx", CRASH_WORKER, t.url, service.url, halt, workerId], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, CRASH_WORKER_LEASE_MS: String(LEASE_MS), STOPLINE_MAINTENANCE_MS: "200" },
  });
  const messages: Message[] = [];
  const waiters: { event: string; resolve: (m: Message) => void; reject: (e: Error) => void }[] = [];
  let stderr = "";
  let buffered = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  proc.stdout!.on("data", (d) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line.startsWith("{")) continue;
      const m = JSON.parse(line) as Message;
      messages.push(m);
      for (const w of waiters.filter((w) => w.event === m.event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("exit", (code, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`worker ${workerId} exited (${code ?? signal}) before "${w.event}"; stderr:\n${stderr}`));
      resolve({ code, signal });
    }),
  );
  const worker: WorkerProcess = {
    workerId,
    proc,
    messages,
    exited,
    next(event, timeoutMs = 30_000) {
      const seen = messages.find((m) => m.event === event);
      if (seen) return Promise.resolve(seen);
      return new Promise<Message>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker ${workerId}: no "${event}" within ${timeoutMs} ms; stdout: ${JSON.stringify(messages)}; stderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({ event, resolve: (m) => (clearTimeout(timer), resolve(m)), reject: (e) => (clearTimeout(timer), reject(e)) });
      });
    },
    async kill() {
      proc.kill("SIGKILL");
      expect((await exited).signal).toBe("SIGKILL");
    },
    async stop() {
      proc.kill("SIGTERM");
      const { code } = await exited;
      expect(code, `worker ${workerId} stderr:\n${stderr}`).toBe(0);
    },
  };
  started.add(worker);
  return worker;
}

// ---- ledger helpers ----------------------------------------------------------------------------------

const ITEMS = [{ sku: "chair-oak", qty: 2 }];

async function scheduleOrder() {
  const task = await createTask(t.database, { title: "order two chairs", ownerId: "user-1" }, "agent:test");
  const item = await scheduleWorkItem(
    t.database,
    {
      taskId: task.id,
      kind: WorkItemKind.externalAction,
      toolName: CREATE_ORDER_TOOL,
      mechanism: Mechanism.none,
      commitsEffect: true,
      intentVersion: task.intentVersion,
      input: { items: ITEMS },
    },
    "agent:test",
  );
  return { task, item };
}

const reload = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
const sideEffectsOf = (workItemId: string) => t.database.prisma.sideEffect.findMany({ where: { workItemId } });
const eventsOf = (workItemId: string) => t.database.prisma.ledgerEvent.findMany({ where: { workItemId }, orderBy: { seq: "asc" } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the lease the dead worker held has expired (judged against the recorded expiry). */
async function waitPastLease(id: string) {
  const { leaseExpiresAt } = await reload(id);
  expect(leaseExpiresAt, "the crashed worker held a lease").not.toBeNull();
  await sleep(Math.max(0, leaseExpiresAt!.getTime() - Date.now()) + 150);
}

async function waitUntilTerminal(id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const item = await reload(id);
    if (isTerminalItem(item.status)) return item;
    if (Date.now() > deadline) throw new Error(`work item ${id} is still "${item.status}" after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Kills a worker halted at `halt` for the one scheduled item and returns what the ledger then says. */
async function crashAt(halt: HaltPoint, itemId: string) {
  const crashed = spawnWorker(halt, "crashed");
  const halted = await crashed.next(halt);
  expect(halted.workItemId).toBe(itemId);
  await crashed.kill();
  return { halted, atCrash: await reload(itemId) };
}

/** A second worker process (pool + maintenance pass) resumes from the ledger; stopped once the item settled. */
async function restartAndSettle(itemId: string) {
  const restarted = spawnWorker(HaltPoint.never, "restarted");
  await restarted.next("ready");
  const settled = await waitUntilTerminal(itemId);
  await sleep(300); // a few more poll and maintenance rounds: a wrongful re-run would show up now
  await restarted.stop();
  return { restarted, settled, events: await eventsOf(itemId) };
}

const ofType = <E extends { type: string }>(events: E[], type: string) => events.filter((e) => e.type === type);
const stepData = (e: { data: unknown }) => (e.data ?? {}) as { action?: string; success?: boolean };

// ---- the scenarios -----------------------------------------------------------------------------------

describe(`a worker process killed during an external action (${provider})`, () => {
  it("SIGKILL after the service accepted the order and the ledger recorded the submission: reconciled through inspect, never re-run, exactly one order", async () => {
    const { item } = await scheduleOrder();
    const { halted, atCrash } = await crashAt(HaltPoint.afterSubmit, item.id);

    // The outcome is known to the service, not yet to the ledger.
    expect(service.created).toHaveLength(1);
    const order = service.created[0];
    expect(order).toMatchObject({ orderId: halted.orderId, idempotencyKey: item.idempotencyKey, items: ITEMS });
    expect(atCrash).toMatchObject({ status: "submitted", operationId: order.orderId, leaseOwner: "crashed" });
    expect(await sideEffectsOf(item.id)).toEqual([expect.objectContaining({ operationId: order.orderId, outcome: "unknown" })]);

    await waitPastLease(item.id);
    const { restarted, settled, events } = await restartAndSettle(item.id);

    // Ended known: completed, its side effect committed with the service's record.
    expect(settled).toMatchObject({ status: "completed", operationId: order.orderId, attempt: 1, leaseToken: null });
    expect(settled.result).toEqual({ orderId: order.orderId, version: order.version });
    expect(await sideEffectsOf(item.id)).toEqual([
      expect.objectContaining({ operationId: order.orderId, outcome: "committed", externalRecordId: order.orderId, externalVersion: order.version }),
    ]);

    // Exactly one action at the service, and it was asked — not re-sent.
    expect(service.created).toHaveLength(1);
    expect(service.postsFor(item.idempotencyKey)).toBe(1);
    expect(service.lookupsFor(item.idempotencyKey)).toBeGreaterThanOrEqual(1);

    // Not re-run: one claim ever; the restarted worker ran nothing.
    expect(ofType(events, "work_item.claimed")).toHaveLength(1);
    expect(restarted.messages.filter((m) => m.event === "settled")).toEqual([]);
    expect(ofType(events, "lease.stale_token_rejected")).toEqual([]);

    // The path: lease expired → uncertain → reconcile step (inspect) → reconciled → completed.
    const [expired] = ofType(events, "lease.expired");
    expect(expired).toMatchObject({ fromState: "submitted", toState: "uncertain" });
    const reconcileSteps = ofType(events, "cancellation.step").filter((e) => stepData(e).action === "reconcile");
    expect(reconcileSteps.length).toBeGreaterThanOrEqual(1);
    expect(stepData(reconcileSteps[0]).success).toBe(true);
    expect(reconcileSteps[0].reason).toContain("committed");
    const [reconciled] = ofType(events, "work_item.reconciled");
    expect(reconciled).toMatchObject({ fromState: "uncertain", toState: "completed" });
    expect(expired.seq).toBeLessThan(reconcileSteps[0].seq);
    expect(reconcileSteps[0].seq).toBeLessThan(reconciled.seq);
    expect(ofType(events, "work_item.finished")).toEqual([]); // no worker ever reported a result for it
  }, 60_000);

  it("SIGKILL right after the claim, before anything was checked or sent: the lease expires, the item is queued again and a new worker completes it, exactly one order", async () => {
    const { item } = await scheduleOrder();
    const { atCrash } = await crashAt(HaltPoint.beforeCheckpoint, item.id);

    expect(atCrash).toMatchObject({ status: "running", operationId: null, leaseOwner: "crashed", attempt: 1 });
    expect(service.requests).toEqual([]); // the service never heard of it

    await waitPastLease(item.id);
    const { restarted, settled, events } = await restartAndSettle(item.id);

    expect(settled).toMatchObject({ status: "completed", attempt: 2 });
    expect(service.created).toHaveLength(1);
    const order = service.created[0];
    expect(order.idempotencyKey).toBe(item.idempotencyKey);
    expect(service.postsFor(item.idempotencyKey)).toBe(1);
    expect(settled.operationId).toBe(order.orderId);
    expect(settled.result).toEqual({ orderId: order.orderId, version: order.version });
    expect(await sideEffectsOf(item.id)).toEqual([
      expect.objectContaining({ operationId: order.orderId, outcome: "committed", externalRecordId: order.orderId }),
    ]);

    // Re-queued (not uncertain) and claimed a second time, by the restarted worker.
    const [expired] = ofType(events, "lease.expired");
    expect(expired).toMatchObject({ fromState: "running", toState: "queued" });
    expect(ofType(events, "work_item.claimed").map((e) => e.actor)).toEqual(["worker:crashed", "worker:restarted"]);
    expect(ofType(events, "work_item.reconciled")).toEqual([]);
    expect(restarted.messages.filter((m) => m.event === "settled")).toEqual([expect.objectContaining({ workItemId: item.id, outcome: "completed" })]);
  }, 60_000);

  it("SIGKILL after the order was created but before the ledger heard of it (no operation id recorded): the passed checkpoint makes it uncertain, inspect by idempotency key finds the order, never re-run", async () => {
    const { item } = await scheduleOrder();
    const { halted, atCrash } = await crashAt(HaltPoint.afterPost, item.id);

    expect(service.created).toHaveLength(1);
    const order = service.created[0];
    expect(halted.orderId).toBe(order.orderId);
    expect(atCrash).toMatchObject({ status: "running", operationId: null });
    expect(await sideEffectsOf(item.id)).toEqual([]);

    await waitPastLease(item.id);
    const { restarted, settled, events } = await restartAndSettle(item.id);

    expect(settled.status).toBe("completed");
    expect(service.created).toHaveLength(1);
    expect(service.postsFor(item.idempotencyKey)).toBe(1);
    expect(service.lookupsFor(item.idempotencyKey)).toBeGreaterThanOrEqual(1);
    expect(ofType(events, "work_item.claimed")).toHaveLength(1);
    expect(restarted.messages.filter((m) => m.event === "settled")).toEqual([]);
    expect(ofType(events, "lease.expired")[0]).toMatchObject({ fromState: "running", toState: "uncertain" });
    expect(ofType(events, "work_item.reconciled")[0]).toMatchObject({ fromState: "uncertain", toState: "completed" });
    // The side effect the worker never recorded is recorded from the service's answer.
    expect(await sideEffectsOf(item.id)).toEqual([
      expect.objectContaining({ outcome: "committed", externalRecordId: order.orderId, externalVersion: order.version }),
    ]);
  }, 60_000);

  it("SIGKILL after the checkpoint but before the POST: it may have been sent, so it is reconciled, not re-run — the service says no order, the item fails and nothing was ever created", async () => {
    const { item } = await scheduleOrder();
    const { atCrash } = await crashAt(HaltPoint.afterCheckpoint, item.id);
    expect(atCrash).toMatchObject({ status: "running", operationId: null });

    await waitPastLease(item.id);
    const { restarted, settled, events } = await restartAndSettle(item.id);

    expect(settled.status).toBe("failed");
    expect(service.created).toEqual([]);
    expect(service.postsFor(item.idempotencyKey)).toBe(0);
    expect(service.lookupsFor(item.idempotencyKey)).toBeGreaterThanOrEqual(1);
    expect(ofType(events, "work_item.claimed")).toHaveLength(1);
    expect(restarted.messages.filter((m) => m.event === "settled")).toEqual([]);
    expect(ofType(events, "lease.expired")[0]).toMatchObject({ fromState: "running", toState: "uncertain" });
    expect(ofType(events, "work_item.reconciled")[0]).toMatchObject({ fromState: "uncertain", toState: "failed" });
    expect(await sideEffectsOf(item.id)).toEqual([]);
  }, 60_000);
});

describe(`the worker survives but the service's answer is lost (${provider})`, () => {
  // Same invariant without a crash: the POST reached the service and created the order, the connection then
  // dropped. The worker cannot know whether the action took effect — exactly the "timeout after submission"
  // case of invariant 5 — so the item must not end `failed` (a lie: the order exists); it must be reconciled.
  it("the order was created, the response never arrived: the item is reconciled through inspect (not reported failed), exactly one order", async () => {
    const { item } = await scheduleOrder();
    service.loseNextCreateResponse();
    const worker = spawnWorker(HaltPoint.never, "survivor");
    const settledRun = await worker.next("settled");
    expect(settledRun.workItemId).toBe(item.id);
    const final = await waitUntilTerminal(item.id);
    await sleep(300);
    await worker.stop();
    const events = await eventsOf(item.id);

    expect(service.created).toHaveLength(1);
    const order = service.created[0];
    expect(service.postsFor(item.idempotencyKey)).toBe(1);
    expect(ofType(events, "work_item.claimed")).toHaveLength(1);
    expect(
      final.status,
      `the service holds order ${order.orderId} for this item, yet the ledger says "${final.status}" (error: ${final.error}); events: ${events.map((e) => `${e.type}:${e.fromState ?? ""}→${e.toState ?? ""}`).join(", ")}`,
    ).toBe("completed");
    expect(ofType(events, "work_item.reconciled")[0]).toMatchObject({ toState: "completed" });
    expect(service.lookupsFor(item.idempotencyKey)).toBeGreaterThanOrEqual(1);
    expect(await sideEffectsOf(item.id)).toEqual([expect.objectContaining({ outcome: "committed", externalRecordId: order.orderId })]);
  }, 60_000);
});
