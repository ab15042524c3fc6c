/**
 * Property test of the cancellation invariants (DESIGN.md rules 1–5 and 7). It interleaves claims,
 * heartbeats, checkpoints, service calls, submissions, completions, worker crashes, zombie workers, Stop
 * requests and engine runs at random — some of them concurrently — one task (1–6 children of three tool
 * kinds) per run, and after each run checks the ledger (labels in failures name the DESIGN.md rule):
 *
 *  1. nothing started or submitted after the boundary (rule 2): no `work_item.claimed`, `checkpoint.passed`
 *     or `work_item.scheduled` after the `task.cancel_requested` event; a `work_item.submitted` after it
 *     only for a commitment whose checkpoint passed, under the same claim, BEFORE the boundary (see below);
 *  2. every child known or explicitly uncertain (rule 3): after the final engine run, terminal, `uncertain`
 *     with a reconcile deadline, or `cancelling`/`unrecoverable` under a live lease a worker was given;
 *     after the workers vanish (every lease expired and recovered) and the engine runs again, terminal or
 *     uncertain with a deadline, the task `cancelled`, every resource verified released or orphaned with a
 *     review item;
 *  3. no summary claim contradicts the ledger (rule 4): nothing CANCELLED/CANCELLED_INCOMPLETE whose ledger
 *     status is completed (or whose recorded action took or may have taken effect), every committed side
 *     effect — and only those — in orphaned_side_effects, CANCELLED only with no committed/unknown effect
 *     and no uncertain child, no child dropped, and (at the end) every action the in-memory service
 *     committed is reported committed or its child is uncertain;
 *  4. duplicate Stops change nothing (rule 7): every Stop answers the one boundary, one
 *     `task.cancel_requested` event, one intent bump, one `cancellation.planned` event (engines run up to
 *     three at once), and two more Stops after the end write nothing;
 *  5. (rule 5) no action is sent to the service under two different claims (a child that may have
 *     submitted is reconciled, never re-run).
 * Only AppError (a refusal) is swallowed; any other error fails the property.
 *
 * Submissions after the boundary: a worker that passed its checkpoint before the boundary may already have
 * sent the action; its `ctx.submitted()` after the boundary records a FACT about a commitment made before
 * it, not new work (the checkpoint is the gate; checkpoint-work-item.ts: "a Stop that arrives after a passed
 * checkpoint cannot un-send the action"). So check 1 allows a post-boundary `work_item.submitted` only when
 * the same claim passed its checkpoint before the boundary, and forbids it otherwise. A submission from a
 * stale lease writes no `work_item.submitted` (only `side_effect.recorded` + `lease.stale_token_rejected`):
 * it is a fact to reconcile, so check 1 ignores it and check 3 holds the summary to it. The modelled workers
 * follow the protocol (they call the service only after their own checkpoint passed, and report honestly);
 * zombies (crashed workers) keep their stale token and may still heartbeat, checkpoint, submit and complete.
 *
 * Reproduce: FC_SEED=<seed> (printed) [FC_RUNS=n] npx vitest run --project sqlite lib/cancellation/invariants
 * FC_COVERAGE=1 prints what the runs exercised; FC_TOLERATE_KNOWN=1 lets the random property pass the known
 * bugs B1–B3 (documented above KNOWN, at the end of this file) to look for other counterexamples meanwhile.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkItem } from "../../../lib/db/generated/sqlite/client.ts";
import { AppError } from "../../../lib/errors";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { completeWorkItem, type WorkerOutcome } from "../../../lib/ledger/complete-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { heartbeatWorkItem } from "../../../lib/ledger/heartbeat-work-item";
import { markUncertain } from "../../../lib/ledger/mark-uncertain";
import { recordSubmission } from "../../../lib/ledger/record-submission";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { holdResource, releaseResourceRequested } from "../../../lib/ledger/resources";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { isTerminalItem, Mechanism, TaskStage, WorkItemStatus } from "../../../lib/ledger/states";
import { FakeExternalService, FakeResourceStore, prng } from "../../support/fake-external-service";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { executeCancellation } from "../../../lib/cancellation/execute-cancellation";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation, type CancellationRequestResult } from "../../../lib/cancellation/steps/1-record-boundary";
import { SummaryStatus, ToolCallStatus } from "../../../lib/cancellation/summarize";

const SEED = Number(process.env.FC_SEED ?? 20_260_611);
const RUNS = Number(process.env.FC_RUNS ?? 40);
/** Caps the whole assertion, shrinking included (a failure found is still reported, shrunk as far as time allowed). */
const TIME_LIMIT_MS = Number(process.env.FC_TIME_LIMIT_MS ?? 60_000);
const MAX_ITEMS = 6;
/** Long leases: only the test's "crash" decides when a lease expires (other runs' leases never expire mid-file). */
const LEASE_MS = 10 * 60_000;
const actor = "agent:property";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

// ---- the model's vocabulary ---------------------------------------------------------------------

const ToolKind = { local: "local", cancelable: "cancelable", unstoppable: "unstoppable" } as const;
type ToolKind = (typeof ToolKind)[keyof typeof ToolKind];
type Worker = "A" | "B";
const OUTCOMES = ["completed", "failed", "cancelled", "partial", "cancelled_incomplete"] as const satisfies readonly WorkerOutcome[];

type Leaf =
  | { t: "schedule"; kind: ToolKind; stale: boolean }
  | { t: "claim"; worker: Worker }
  | { t: "heartbeat"; pick: number; zombie: boolean }
  | { t: "checkpoint"; pick: number; zombie: boolean }
  /** Call the service (commits or not: the test decides the truth) and/or record the submission. */
  | { t: "submit"; pick: number; zombie: boolean; record: boolean; commits: boolean; reversible: boolean }
  | { t: "hold"; pick: number }
  | { t: "release"; pick: number }
  | { t: "complete"; pick: number; zombie: boolean; outcome: (typeof OUTCOMES)[number]; partial: boolean }
  /** The worker timed out waiting for an accepted action: it marks the item uncertain (run-work-item does). */
  | { t: "giveUp"; pick: number }
  /** The worker's next protocol step (checkpoint → call the service → record → complete), chosen by `choice`. */
  | { t: "advance"; pick: number; zombie: boolean; choice: number }
  | { t: "crash"; worker: Worker }
  /** The worker sends its action (past its checkpoint) and dies before ctx.submitted(): only the service knows. */
  | { t: "crashAfterCall"; pick: number; commits: boolean }
  | { t: "recover" }
  | { t: "stop"; times: number; concurrent: boolean }
  /** The cancellation engine, run by `copies` app instances at once (each reacts to the Stop). */
  | { t: "engine"; verifyDelayMs: number; settleTimeoutMs: number; copies: number };
type Op = Leaf | { t: "parallel"; ops: [Leaf, Leaf] };

const pick = fc.nat({ max: 7 });
const zombie = fc.nat({ max: 3 }).map((n) => n === 0);
const worker = fc.constantFrom<Worker>("A", "B");
const toolKind = fc.constantFrom<ToolKind>(ToolKind.local, ToolKind.cancelable, ToolKind.unstoppable);
const stopArb = fc.record({ t: fc.constant("stop" as const), times: fc.integer({ min: 1, max: 3 }), concurrent: fc.boolean() });
const engineArb = fc.record({
  t: fc.constant("engine" as const),
  verifyDelayMs: fc.integer({ min: 0, max: 10 }),
  settleTimeoutMs: fc.constantFrom(0, 20, 100),
  copies: fc.integer({ min: 1, max: 3 }),
});
/** What workers do (no Stop, no engine). */
const workArb: fc.Arbitrary<Leaf> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ t: fc.constant("schedule" as const), kind: toolKind, stale: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("claim" as const), worker }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant("advance" as const), pick, zombie, choice: fc.nat({ max: 15 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("heartbeat" as const), pick, zombie }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("checkpoint" as const), pick, zombie }) },
  {
    weight: 4,
    arbitrary: fc.record({ t: fc.constant("submit" as const), pick, zombie, record: fc.boolean(), commits: fc.boolean(), reversible: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("hold" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("release" as const), pick }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("complete" as const), pick, zombie, outcome: fc.constantFrom(...OUTCOMES), partial: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("giveUp" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("crash" as const), worker }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("crashAfterCall" as const), pick, commits: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("recover" as const) }) },
);
const anyArb: fc.Arbitrary<Leaf> = fc.oneof({ weight: 6, arbitrary: workArb }, { weight: 1, arbitrary: stopArb }, { weight: 1, arbitrary: engineArb });
const withRaces = (leaf: fc.Arbitrary<Leaf>): fc.Arbitrary<Op> =>
  fc.oneof({ weight: 6, arbitrary: leaf }, { weight: 1, arbitrary: fc.record({ t: fc.constant("parallel" as const), ops: fc.tuple(leaf, leaf) }) });
/**
 * A run: workers busy before the Stop, the Stop itself (alone, or racing with a worker's call or the
 * engine), then anything — more worker calls (zombies among them), duplicate Stops, engine runs.
 * (With no `stop`, the Stop comes at the end of the run.)
 */
interface Scenario {
  kinds: ToolKind[];
  before: Op[];
  stop: Op | null;
  after: Op[];
  /** Seeds the run's other random choices (whether a cleanup succeeds). */
  seed: number;
  inspectUnavailable: boolean;
  cancelUnavailable: boolean;
  cleanupFailRate: number;
}
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  kinds: fc.array(toolKind, { minLength: 1, maxLength: MAX_ITEMS }),
  before: fc.array(withRaces(workArb), { maxLength: 24, size: "max" }),
  stop: fc.option(
    fc.oneof(
      stopArb as fc.Arbitrary<Op>,
      fc.record({
        t: fc.constant("parallel" as const),
        ops: fc.tuple(stopArb as fc.Arbitrary<Leaf>, fc.oneof(workArb, engineArb as fc.Arbitrary<Leaf>)),
      }) as fc.Arbitrary<Op>,
    ),
    { freq: 8 },
  ),
  after: fc.array(withRaces(anyArb), { maxLength: 12, size: "max" }),
  seed: fc.integer(),
  inspectUnavailable: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  cancelUnavailable: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  cleanupFailRate: fc.constantFrom(0, 0.5),
});

/** One claim of one item by one worker: its fencing token and what the worker did under it. */
interface Attempt {
  itemId: string;
  kind: ToolKind;
  idempotencyKey: string;
  worker: Worker;
  token: string;
  /** false once the worker crashed (a zombie keeps its stale token), gave up or finished. */
  alive: boolean;
  /** The worker reported how it ended (or gave up): it sends nothing to the service any more. */
  finished: boolean;
  /** A call of this worker is in flight (ops run concurrently in `parallel`). */
  busy: boolean;
  checkpointPassed: boolean;
  called: boolean;
  operationId: string | null;
  committed: boolean;
  recorded: boolean;
  handles: string[];
}

/** Only AppError is an expected refusal; anything else (a crash, a Prisma error) fails the property. */
async function refusable<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (error) {
    if (error instanceof AppError) return undefined;
    throw error;
  }
}

let runNo = 0;
/** What the runs exercised (event types and item end states across all runs), printed at the end. */
const coverage = new Map<string, number>();
const bump = (key: string, n = 1) => coverage.set(key, (coverage.get(key) ?? 0) + n);

async function runScenario(s: Scenario, tolerateKnown = false) {
  const run = ++runNo;
  const database = t.database;
  const random = prng(s.seed);
  const service = new FakeExternalService(`svc${run}`);
  service.inspectUnavailable = s.inspectUnavailable;
  service.cancelUnavailable = s.cancelUnavailable;
  const store = new FakeResourceStore(() => random() >= s.cleanupFailRate);
  const prefix = `prop${run}-${Math.abs(s.seed)}`;
  const toolName: Record<ToolKind, string> = { local: `${prefix}.draft`, cancelable: `${prefix}.order`, unstoppable: `${prefix}.email` };
  const registry = new ToolRegistry()
    .register({
      name: toolName.local,
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: Mechanism.abortSignal,
      run: async () => null,
      cleanup: (r) => store.cleanup(r),
      verifyReleased: (r) => store.verifyReleased(r),
    })
    .register({
      name: toolName.cancelable,
      kind: "external_action",
      risk: "high",
      commitsEffect: true,
      mechanism: Mechanism.providerCancel,
      run: async () => null,
      cancel: (ref) => service.cancel(ref),
      inspect: (ref) => service.inspect(ref),
    })
    .register({
      name: toolName.unstoppable,
      kind: "external_action",
      risk: "low",
      commitsEffect: true,
      mechanism: Mechanism.none,
      run: async () => null,
      inspect: (ref) => service.inspect(ref),
    });
  const kindOf = new Map(Object.entries(toolName).map(([k, v]) => [v, k as ToolKind]));
  const mechanismOf: Record<ToolKind, Mechanism> = { local: Mechanism.abortSignal, cancelable: Mechanism.providerCancel, unstoppable: Mechanism.none };

  const task = await createTask(database, { title: `property run ${run}`, ownerId: "prop" }, actor);
  const initialIntent = task.intentVersion;
  let scheduled = 0;
  const schedule = async (kind: ToolKind, stale: boolean) => {
    if (scheduled >= MAX_ITEMS) return;
    const item = await refusable(
      scheduleWorkItem(
        database,
        {
          taskId: task.id,
          kind: kind === ToolKind.local ? "local_worker" : "external_action",
          toolName: toolName[kind],
          mechanism: mechanismOf[kind],
          commitsEffect: kind !== ToolKind.local,
          intentVersion: stale ? initialIntent - 1 : initialIntent,
        },
        actor,
      ),
    );
    if (item) scheduled++;
  };
  for (const kind of s.kinds) await schedule(kind, false);

  const attempts: Attempt[] = [];
  const stops: CancellationRequestResult[] = [];
  const choose = (all: Attempt[], n: number) => {
    const pool = all.filter((a) => !a.busy);
    return pool.length ? pool[n % pool.length] : undefined;
  };
  const live = (zombie: boolean) => attempts.filter((a) => a.alive === !zombie);
  const engineOptions = (verifyDelayMs: number, settleTimeoutMs: number) => ({
    registry,
    verifyDelayMs,
    settleTimeoutMs,
    cancelAttempts: 1,
    cancelBackoffMs: 0,
  });

  const recordOf = (a: Attempt, reversible: boolean): Promise<unknown> =>
    recordSubmission(database, {
      workItemId: a.itemId,
      leaseToken: a.token,
      operationId: a.operationId!,
      externalRecordId: `rec-${a.operationId}`,
      externalVersion: "v1",
      reversible,
      description: `${a.kind} action ${a.operationId}`,
      actor: `worker:${a.worker}`,
    });

  const maySend = (a: Attempt) => a.kind !== ToolKind.local && a.checkpointPassed && !a.recorded && !a.finished;
  /** One worker does one thing at a time: an attempt busy with a call is not picked by a concurrent op. */
  const as = async (a: Attempt | undefined, fn: (a: Attempt) => Promise<unknown>) => {
    if (!a) return;
    a.busy = true;
    try {
      await fn(a);
    } finally {
      a.busy = false;
    }
  };
  const worker = (a: Attempt) => `worker:${a.worker}`;
  const heartbeat = (a: Attempt) => refusable(heartbeatWorkItem(database, { workItemId: a.itemId, leaseToken: a.token, leaseMs: LEASE_MS, actor: worker(a) }));
  const checkpoint = async (a: Attempt) => {
    if (await refusable(checkpointWorkItem(database, { workItemId: a.itemId, leaseToken: a.token, actor: worker(a) }))) a.checkpointPassed = true;
  };
  const submit = async (a: Attempt, op: { record: boolean; commits: boolean; reversible: boolean }) => {
    if (!a.called) {
      a.called = true;
      const accepted = service.submit(a.idempotencyKey, op.commits, a.token);
      if (!accepted) {
        // the provider refused (it was cancelled): the worker reports the failure and stops
        a.alive = false;
        a.finished = true;
        return;
      }
      a.operationId = accepted.operationId;
      a.committed = accepted.committed;
    }
    if (!op.record) return;
    a.recorded = true;
    await refusable(recordOf(a, op.reversible));
  };
  const hold = async (a: Attempt) => {
    const handle = `${prefix}-h${a.handles.length}-${a.itemId.slice(0, 8)}`;
    if (await refusable(holdResource(database, { workItemId: a.itemId, leaseToken: a.token, type: "tempfile", handle, actor: worker(a) }))) {
      store.hold(handle);
      a.handles.push(handle);
    }
  };
  const release = async (a: Attempt) => {
    const handle = a.handles.find((h) => store.state.get(h) === "held")!;
    store.release(handle);
    await refusable(
      releaseResourceRequested(database, { workItemId: a.itemId, type: "tempfile", handle, actor: worker(a), reason: "released by the running code" }),
    );
  };
  const complete = async (a: Attempt, requested: WorkerOutcome, partial: boolean) => {
    // Honest workers: an action the service accepted is recorded before the report, and the report
    // follows the service's answer (committed → completed; otherwise failed, or cancelled after a Stop).
    let outcome = requested;
    if (a.operationId) {
      if (!a.recorded) {
        a.recorded = true;
        await refusable(recordOf(a, false));
      }
      outcome = a.committed ? "completed" : requested === "cancelled" ? "cancelled" : "failed";
    }
    const partialResult = outcome === "partial" || partial ? { rows: [1, 2] } : undefined;
    if (await refusable(completeWorkItem(database, { workItemId: a.itemId, leaseToken: a.token, outcome, partialResult, actor: worker(a) }))) {
      a.alive = false;
      a.finished = true;
    }
  };
  /** The worker timed out waiting for the service's answer: the item becomes uncertain (as run-work-item does). */
  const giveUp = async (a: Attempt) => {
    a.alive = false;
    a.finished = true;
    await refusable(markUncertain(database, { workItemId: a.itemId, leaseToken: a.token, reason: "timed out waiting for the service", actor: worker(a) }));
  };

  async function apply(op: Op): Promise<void> {
    switch (op.t) {
      case "parallel":
        await Promise.all(op.ops.map(apply));
        return;
      case "schedule":
        return schedule(op.kind, op.stale);
      case "claim": {
        const item = (await refusable(claimWorkItem(database, { workerId: op.worker, toolNames: Object.values(toolName), leaseMs: LEASE_MS }))) as
          | WorkItem
          | null
          | undefined;
        if (!item) return;
        attempts.push({
          itemId: item.id,
          kind: kindOf.get(item.toolName)!,
          idempotencyKey: item.idempotencyKey,
          worker: op.worker,
          token: item.leaseToken!,
          alive: true,
          finished: false,
          busy: false,
          checkpointPassed: false,
          called: false,
          operationId: null,
          committed: false,
          recorded: false,
          handles: [],
        });
        return;
      }
      case "heartbeat":
        return as(choose(live(op.zombie), op.pick), heartbeat);
      case "checkpoint":
        return as(choose(live(op.zombie), op.pick), checkpoint);
      case "submit":
        // A protocol-following worker (or zombie) sends the action only after its own checkpoint passed.
        return as(choose(live(op.zombie).filter(maySend), op.pick), (a) => submit(a, op));
      case "hold":
        return as(
          choose(
            live(false).filter((x) => x.kind === ToolKind.local),
            op.pick,
          ),
          hold,
        );
      case "release":
        return as(
          choose(
            live(false).filter((x) => x.handles.some((h) => store.state.get(h) === "held")),
            op.pick,
          ),
          release,
        );
      case "complete":
        return as(choose(live(op.zombie), op.pick), (a) => complete(a, op.outcome, op.partial));
      case "giveUp":
        return as(
          choose(
            live(false).filter((x) => x.called && !x.finished),
            op.pick,
          ),
          giveUp,
        );
      case "advance":
        return as(choose(live(op.zombie), op.pick), (a) => {
          const bit = (n: number) => ((op.choice >> n) & 1) === 1;
          const outcome = OUTCOMES[op.choice % OUTCOMES.length];
          if (a.kind === ToolKind.local) return bit(0) && bit(1) && a.alive ? hold(a) : bit(0) ? heartbeat(a) : complete(a, outcome, bit(2));
          if (!a.checkpointPassed) return checkpoint(a);
          if (maySend(a)) return submit(a, { record: a.called || bit(0), commits: bit(1), reversible: bit(2) });
          if (bit(3) && a.alive && a.called && !a.finished) return giveUp(a);
          return complete(a, outcome, bit(2));
        });
      case "crash": {
        const dead = attempts.filter((a) => a.alive && a.worker === op.worker);
        for (const a of dead) {
          a.alive = false; // a zombie from now on: it keeps (and may still present) its stale token
          await database.prisma.workItem.updateMany({ where: { id: a.itemId, leaseToken: a.token }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
        }
        await recoverExpiredLeases(database);
        return;
      }
      case "crashAfterCall": {
        const a = choose(
          live(false).filter((x) => maySend(x) && !x.called),
          op.pick,
        );
        if (!a) return;
        await as(a, (x) => submit(x, { record: false, commits: op.commits, reversible: false }));
        return apply({ t: "crash", worker: a.worker });
      }
      case "recover":
        await recoverExpiredLeases(database);
        return;
      case "stop": {
        const once = () => requestCancellation(database, { taskId: task.id, reason: "user pressed Stop", actor: "user:prop" });
        if (op.concurrent) stops.push(...(await Promise.all(Array.from({ length: op.times }, once))));
        else for (let i = 0; i < op.times; i++) stops.push(await once());
        return;
      }
      case "engine":
        await Promise.all(
          Array.from({ length: op.copies }, () => refusable(executeCancellation(database, task.id, engineOptions(op.verifyDelayMs, op.settleTimeoutMs)))),
        );
        return;
    }
  }

  for (const op of [...s.before, ...(s.stop ? [s.stop] : []), ...s.after]) await apply(op);

  // ---- the end of the run: Stop (if nobody did), the engine, then the checks --------------------------
  if (!stops.length) stops.push(await requestCancellation(database, { taskId: task.id, reason: "end of run", actor: "user:prop" }));
  await executeCancellation(database, task.id, engineOptions(0, 0));

  const context = async () => {
    const events = await database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    const items = await database.prisma.workItem.findMany({ where: { taskId: task.id } });
    const effects = await database.prisma.sideEffect.findMany({ where: { taskId: task.id } });
    return [
      `task ${task.id}`,
      ...items.map(
        (i) =>
          `item ${i.id.slice(0, 8)} ${kindOf.get(i.toolName)} ${i.status} lease=${i.leaseToken ? "yes" : "no"} op=${i.operationId} deadline=${i.reconcileDeadline?.toISOString() ?? null}`,
      ),
      ...effects.map((e) => `effect ${e.operationId} of ${e.workItemId.slice(0, 8)}: ${e.outcome}`),
      ...events.map((e) => `${e.seq} ${e.type} ${e.workItemId?.slice(0, 8) ?? ""} ${e.fromState ?? ""}→${e.toState ?? ""} ${e.actor}`),
      `service: ${JSON.stringify([...service.operations])} cancelled=${JSON.stringify([...service.cancelledKeys])}`,
    ].join("\n");
  };
  const check = async (label: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      throw new Error(`${label}: ${(error as Error).message}\n--- ledger ---\n${await context()}`);
    }
  };

  // 2a. After the engine: every child is terminal, uncertain with a deadline, or still being stopped /
  //     watched (cancelling, unrecoverable) by a worker that holds a live lease. Nothing queued, running or
  //     submitted; nothing in a stopping state without a worker.
  await check("invariant 3 (after the engine)", async () => {
    const items = await database.prisma.workItem.findMany({ where: { taskId: task.id } });
    const now = Date.now();
    for (const i of items) {
      if (isTerminalItem(i.status)) continue;
      if (i.status === WorkItemStatus.uncertain) {
        expect(i.reconcileDeadline, `uncertain item ${i.id} has a reconcile deadline`).not.toBeNull();
        continue;
      }
      expect([WorkItemStatus.cancelling, WorkItemStatus.unrecoverable], `item ${i.id} is ${i.status}`).toContain(i.status);
      expect(i.leaseToken && i.leaseExpiresAt && i.leaseExpiresAt.getTime() > now, `item ${i.id} (${i.status}) has a live lease`).toBeTruthy();
      expect(
        attempts.some((a) => a.token === i.leaseToken),
        `the lease of ${i.id} is one a worker was given`,
      ).toBe(true);
    }
  });
  await check("invariant 4 (summary while workers live)", () => checkSummary(false));

  // The workers vanish: every lease of this task expires and is recovered; the engine runs once more.
  for (const a of attempts) a.alive = false;
  await database.prisma.workItem.updateMany({ where: { taskId: task.id, leaseToken: { not: null } }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
  await recoverExpiredLeases(database);
  await executeCancellation(database, task.id, engineOptions(0, 0));

  // 2b. Every child ends known or explicitly uncertain; the task is settled.
  await check("invariant 3 (after recovery)", async () => {
    const items = await database.prisma.workItem.findMany({ where: { taskId: task.id } });
    for (const i of items) {
      if (isTerminalItem(i.status)) continue;
      expect(i.status, `item ${i.id}`).toBe(WorkItemStatus.uncertain);
      expect(i.reconcileDeadline, `uncertain item ${i.id} has a reconcile deadline`).not.toBeNull();
    }
    const row = await database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.stage).toBe(TaskStage.cancelled);
    // Resources: verified or orphaned (with a person asked), never "released" on the worker's word alone.
    const resources = await database.prisma.resource.findMany({ where: { taskId: task.id } });
    for (const r of resources) {
      expect(["released", "orphaned"], `resource ${r.handle}`).toContain(r.state);
      if (r.state === "released") expect(store.state.get(r.handle), `resource ${r.handle} reported released`).toBe("released");
      else expect(await database.prisma.reviewItem.count({ where: { resourceId: r.id } }), `orphaned ${r.handle} has a review item`).toBe(1);
    }
  });
  await check("invariant 4 (final summary)", () => checkSummary(true));

  {
    const events = await database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    const boundarySeq = events.find((e) => e.type === "task.cancel_requested")!.seq;
    for (const e of events)
      bump(
        `${e.seq > boundarySeq ? "after" : "before"} boundary: ${e.type}${e.type === "cancellation.step" ? `:${(e.data as { action?: string })?.action}` : ""}`,
      );
    for (const i of await database.prisma.workItem.findMany({ where: { taskId: task.id } })) bump(`end state: ${kindOf.get(i.toolName)} ${i.status}`);
    bump(`Stop during the run: ${s.stop !== null}`);
  }

  // Invariant 5: an action is never sent again by a later claim (a worker that may have submitted is reconciled, not re-run).
  await check("invariant 5 (never re-submitted)", async () => {
    expect(service.resubmitted(), "actions sent under two different claims").toEqual([]);
  });

  // 1. Nothing started or submitted after the boundary.
  await check("invariant 2 (boundary)", async () => {
    const events = await database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    const boundary = events.find((e) => e.type === "task.cancel_requested")!;
    expect(boundary, "the boundary event").toBeDefined();
    for (const e of events.filter((x) => x.seq > boundary.seq)) {
      expect(["work_item.claimed", "checkpoint.passed", "work_item.scheduled"], `event ${e.seq} after the boundary (${boundary.seq})`).not.toContain(e.type);
      if (e.type !== "work_item.submitted") continue;
      const before = events.filter((x) => x.workItemId === e.workItemId && x.seq < e.seq);
      const claim = before.filter((x) => x.type === "work_item.claimed").at(-1);
      const checkpoint = before.filter((x) => x.type === "checkpoint.passed").at(-1);
      expect(
        claim && checkpoint && claim.seq < checkpoint.seq && checkpoint.seq < boundary.seq,
        `submission ${e.seq} after the boundary passed its checkpoint, under the same claim, before it`,
      ).toBe(true);
    }
  });

  // 4. Duplicate Stops change nothing.
  await check("invariant 7 (idempotent Stop)", async () => {
    const boundaries = stops.map((r) => {
      if (r.kind !== "boundary") throw new Error(`Stop answered ${r.kind}`);
      return r.boundary;
    });
    expect(
      boundaries.filter((b) => !b.alreadyRequested),
      "exactly one Stop recorded the boundary",
    ).toHaveLength(1);
    expect(new Set(boundaries.map((b) => `${b.intentVersion}@${b.cancelRequestedAt.toISOString()}`)).size).toBe(1);
    const row = await database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.intentVersion).toBe(initialIntent + 1);
    expect(row.cancelIntentVersion).toBe(initialIntent + 1);
    expect(boundaries[0].intentVersion).toBe(initialIntent + 1);
    expect(await database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "task.cancel_requested" } })).toBe(1);
    expect(await database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "cancellation.planned" } })).toBe(1);
    // A Stop after everything settled (twice, concurrently) writes nothing at all.
    const eventsBefore = await database.prisma.ledgerEvent.count({ where: { taskId: task.id } });
    const again = await Promise.all([0, 1].map(() => requestCancellation(database, { taskId: task.id, reason: "again", actor: "user:prop" })));
    for (const r of again)
      expect(r).toMatchObject({
        kind: "boundary",
        boundary: { alreadyRequested: true, intentVersion: initialIntent + 1, cancelRequestedAt: boundaries[0].cancelRequestedAt },
      });
    expect(await database.prisma.ledgerEvent.count({ where: { taskId: task.id } })).toBe(eventsBefore);
    expect(await database.prisma.task.findUniqueOrThrow({ where: { id: task.id } })).toEqual(row);
  });

  /**
   * 3. The summary against the ledger: nothing reported CANCELLED that completed or whose action took (or may
   * have taken) effect; every committed side effect reported; CANCELLED only when nothing is committed,
   * unknown or uncertain; no child dropped; and (where the ledger recorded the action) not contradicting the
   * service's truth.
   */
  async function checkSummary(final: boolean) {
    const summary = await getCancellationSummary(database, task.id);
    const row = await database.prisma.task.findUniqueOrThrow({ where: { id: task.id }, include: { workItems: true, sideEffects: true } });
    const byCall = new Map(row.workItems.map((i) => [i.correlationId, i]));
    const effectsOf = (id: string) => row.sideEffects.filter((e) => e.workItemId === id);
    const committedKeys = new Set(service.committedKeys());
    // FC_TOLERATE_KNOWN=1 (the random property only): let the known bugs B1–B3 (see the end of this file) pass,
    // to look for other counterexamples meanwhile. B1/B3: an unknown side effect recorded late, by a lease
    // the ledger no longer honours. B2: the provider cancel failed and the engine settled the item anyway.
    const lateFact = (e: { outcome: string; workItemId: string }) =>
      e.outcome === "unknown" && row.workItems.some((i) => i.id === e.workItemId && (isTerminalItem(i.status) || i.leaseToken === null));
    const cancelFailed = async (workItemId: string) =>
      (await database.prisma.ledgerEvent.findMany({ where: { workItemId, type: "cancellation.step" } })).some((e) => {
        const d = e.data as { action?: string; success?: boolean };
        return d.action === "provider_cancel" && d.success === false;
      });

    for (const c of summary.cancelled_tool_calls) {
      const item = byCall.get(c.tool_call_id);
      expect(item, `summary names an item of this task (${c.tool_call_id})`).toBeDefined();
      if (c.cancellation_status === ToolCallStatus.unrecoverable) {
        // "could not be stopped" (lib/outcomes): never said of a child the ledger shows stopped
        expect(
          [WorkItemStatus.cancelled, WorkItemStatus.partial, WorkItemStatus.cancelledIncomplete],
          `${item!.id} UNRECOVERABLE although it is ${item!.status}`,
        ).not.toContain(item!.status);
        continue;
      }
      expect(item!.status, `summary says ${c.cancellation_status} for ${item!.id}`).not.toBe(WorkItemStatus.completed);
      const expected =
        c.cancellation_status === ToolCallStatus.cancelled ? [WorkItemStatus.cancelled, WorkItemStatus.partial] : [WorkItemStatus.cancelledIncomplete];
      expect(expected, `summary says ${c.cancellation_status} for ${item!.id}`).toContain(item!.status);
      const effects = effectsOf(item!.id).filter((e) => e.outcome === "committed" || (e.outcome === "unknown" && !(tolerateKnown && lateFact(e))));
      expect(
        effects.map((e) => `${e.operationId}:${e.outcome}`),
        `summary says ${c.cancellation_status} for ${item!.id}, whose recorded action took or may have taken effect`,
      ).toEqual([]);
    }
    // A child reported stopped whose late-reported action took effect is listed as completed work; one whose
    // late-reported action is of unknown outcome is listed as uncertain (summarize.ts) — never as cancelled.
    const effectOutcomes = (callId: string) => row.sideEffects.filter((e) => e.workItemId === byCall.get(callId)?.id).map((e) => e.outcome);
    for (const c of summary.completed_tool_calls) {
      const status = byCall.get(c.tool_call_id)?.status;
      if (status === WorkItemStatus.completed || status === WorkItemStatus.failed) continue;
      expect(effectOutcomes(c.tool_call_id), `${c.tool_call_id} (${status}) listed as completed work`).toContain("committed");
    }
    for (const c of summary.uncertain_tool_calls) {
      const status = byCall.get(c.tool_call_id)?.status;
      if (status === WorkItemStatus.uncertain) {
        expect(c.reconcile_deadline).not.toBeNull();
        continue;
      }
      expect(effectOutcomes(c.tool_call_id), `${c.tool_call_id} (${status}) listed as uncertain`).toContain("unknown");
    }

    const committed = row.sideEffects.filter((e) => e.outcome === "committed");
    const reported = summary.orphaned_side_effects.map((o) => o.tool_call_id).sort();
    const expectedReported = committed.map((e) => row.workItems.find((i) => i.id === e.workItemId)!.correlationId).sort();
    expect(reported, "every committed side effect, and only those, is in orphaned_side_effects").toEqual(expectedReported);

    const uncertain = row.workItems.filter((i) => i.status === WorkItemStatus.uncertain);
    const unknownEffects = row.sideEffects.filter((e) => e.outcome === "unknown");
    if (summary.status === SummaryStatus.cancelled) {
      expect(
        { committed: committed.length, unknown: unknownEffects.length, uncertain: uncertain.length },
        "CANCELLED only when nothing took effect or is uncertain",
      ).toEqual({ committed: 0, unknown: 0, uncertain: 0 });
    }
    if (!final) return;

    expect(summary.status, "the final summary is not in progress").not.toBe(SummaryStatus.inProgress);
    // No child dropped: every child alive at the boundary (or finished after it) appears in the summary.
    const named = new Set([...summary.cancelled_tool_calls, ...summary.completed_tool_calls, ...summary.uncertain_tool_calls].map((c) => c.tool_call_id));
    for (const i of row.workItems) {
      if (i.finishedAt && i.finishedAt < row.cancelRequestedAt! && isTerminalItem(i.status)) continue;
      expect(named.has(i.correlationId), `item ${i.id} (${i.status}) appears in the summary`).toBe(true);
    }
    // The world: an action the service committed is reported as such (its item completed with a committed
    // side effect), or its item is explicitly uncertain — never reported CANCELLED.
    for (const i of row.workItems) {
      if (!committedKeys.has(i.idempotencyKey)) continue;
      const known = effectsOf(i.id).some((e) => e.outcome === "committed" || (tolerateKnown && lateFact(e))) || (tolerateKnown && (await cancelFailed(i.id)));
      expect(
        known || i.status === WorkItemStatus.uncertain,
        `the service committed ${i.id}'s action; the ledger says ${i.status} with effects ${JSON.stringify(effectsOf(i.id).map((e) => e.outcome))}`,
      ).toBe(true);
    }
  }
}

/**
 * Known counterexamples (bugs found by the property; each test fails until its bug is fixed). The random
 * property (seed 20260611) fails after 15 runs; shrunk counterexample (an instance of B2):
 *   {"kinds":["local","cancelable","local"],"before":[{"t":"claim","worker":"A"},{"t":"claim","worker":"A"},
 *    {"t":"advance","pick":3,"zombie":false,"choice":0}],"stop":{"t":"parallel","ops":[{"t":"stop","times":1,
 *    "concurrent":false},{"t":"advance","pick":0,"zombie":true,"choice":0}]},"after":[{"t":"submit","pick":0,
 *    "zombie":false,"record":false,"commits":false,"reversible":false},{"t":"engine","verifyDelayMs":0,
 *    "settleTimeoutMs":0,"copies":1},{"t":"parallel","ops":[{"t":"engine","verifyDelayMs":0,"settleTimeoutMs":0,
 *    "copies":1},{"t":"advance","pick":7,"zombie":false,"choice":0}]}],"seed":0,"inspectUnavailable":false,
 *    "cancelUnavailable":true,"cleanupFailRate":0}
 *   → "summary says CANCELLED for <item>, whose recorded action took or may have taken effect: ['svc…-op-1:unknown']"
 *
 * B1 `unstoppable` — record-submission.ts:30 (`item.status !== WorkItemStatus.running`): the CURRENT lease
 *    holder of an `unrecoverable` (or `cancelling`) item reports its accepted action and is rejected as if its
 *    token were stale (`lease.stale_token_rejected` with a current token). The item never gets its
 *    operationId, so its completion (complete-work-item.ts:101 / sql/report-and-claim.ts completeOnSqlite, `item.operationId`)
 *    does not settle the effect: the child ends `completed` with an `unknown` side effect that nothing
 *    reconciles; the summary reports no orphaned side effect for an order that was placed, and "we are
 *    checking with the service" (nobody is). Fix: accept the current holder in every leased status; for
 *    cancelling/unrecoverable set operationId/providerRef/submittedAt without a status change (the table has
 *    no cancelling→submitted) and record the side effect + a `work_item.submitted` event.
 * B2 `cancelFailed` — steps/4-stop-running.ts: after the provider cancel failed, markUncertain is called
 *    without the lease token and clears the live worker's lease; step 5 then reconciles at once, inspect
 *    answers `not_committed` (the worker has not sent yet) and steps/5-reconcile.ts settles the child
 *    `cancelled`. The worker passed its checkpoint before the boundary and the cancel never reached the
 *    provider, so it can still send: the action commits, its report is refused as stale, and the ledger
 *    keeps "cancelled" with an unknown effect (or, unreported, nothing at all) for an action that took
 *    effect. Fix: a `not_committed` answer is final only when the action can no longer be sent — the
 *    provider acknowledged the cancel, or no lease holder past a passed checkpoint remains (its lease ended
 *    by completion or expiry); otherwise keep the child uncertain (deadline) and ask again; keep the lease
 *    (or the holder's right to report a submission) when marking it uncertain.
 * B3 `zombie` — a side effect recorded late, by a lease the ledger no longer honours, on a child already
 *    terminal (here: lease expired after the checkpoint → uncertain → inspect `not_committed` → cancelled,
 *    then the sleeping worker sends and reports) is never reconciled: steps/5-reconcile.ts returns for terminal
 *    items and the engine and maintenance pass (engine.ts:81) select work by item status only. The summary
 *    (summarize.ts:86) keeps listing the child CANCELLED beside an unknown effect. Fix: reconcile unknown side
 *    effects by themselves (maintenance: `sideEffect.outcome = unknown`, whatever the item's status; inspect by
 *    its operationId), route a committed one to review; and in summarize.ts never list a child as
 *    CANCELLED/CANCELLED_INCOMPLETE while it has a committed or unknown side effect (report it uncertain).
 */
const claimAndCheckpoint: Op[] = [
  { t: "claim", worker: "A" },
  { t: "checkpoint", pick: 0, zombie: false },
];
const settings = { seed: 0, inspectUnavailable: false, cancelUnavailable: false, cleanupFailRate: 0 };
const submit = (commits: boolean): Op => ({ t: "submit", pick: 0, zombie: false, record: true, commits, reversible: false });
const KNOWN: Record<string, Scenario> = {
  // B2: claim, checkpoint, Stop; the cancel endpoint is down; engine; the worker's action commits and is reported.
  cancelFailed: {
    kinds: ["cancelable"],
    before: claimAndCheckpoint,
    stop: { t: "stop", times: 1, concurrent: false },
    after: [{ t: "engine", verifyDelayMs: 0, settleTimeoutMs: 0, copies: 1 }, submit(true)],
    ...settings,
    cancelUnavailable: true,
  },
  // B1: claim, checkpoint, Stop; engine (→ unrecoverable); the worker's action commits, is reported, completes.
  unstoppable: {
    kinds: ["unstoppable"],
    before: claimAndCheckpoint,
    stop: { t: "stop", times: 1, concurrent: false },
    after: [
      { t: "engine", verifyDelayMs: 0, settleTimeoutMs: 0, copies: 1 },
      submit(true),
      { t: "complete", pick: 0, zombie: false, outcome: "completed", partial: false },
    ],
    ...settings,
  },
  // B3: claim, checkpoint, crash (→ uncertain); Stop; engine (→ cancelled); the zombie's action commits and is reported.
  zombie: {
    kinds: ["unstoppable"],
    before: [...claimAndCheckpoint, { t: "crash", worker: "A" }],
    stop: { t: "stop", times: 1, concurrent: false },
    after: [{ t: "engine", verifyDelayMs: 0, settleTimeoutMs: 0, copies: 1 }, { ...submit(true), zombie: true } as Op],
    ...settings,
  },
};

describe(`known counterexamples (${testEngine()})`, () => {
  for (const [name, scenario] of Object.entries(KNOWN)) it(name, () => runScenario(scenario));
});

describe(`cancellation invariants, at random (${testEngine()})`, () => {
  it("claims, heartbeats, submissions, completions, crashes, zombies, Stops and engine runs interleaved: DESIGN rules 2, 3, 4, 5 and 7 hold", async () => {
    console.log(`[invariants.property] ${testEngine()}: seed=${SEED} runs=${RUNS} (override with FC_SEED / FC_RUNS)`);
    const started = Date.now();
    const property = fc.asyncProperty(scenarioArb, (s) => runScenario(s, !!process.env.FC_TOLERATE_KNOWN));
    // failOnInterrupt: a run cut short by the time limit before numRuns is a failure, never a silent pass.
    await fc.assert(property, { seed: SEED, numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS, { failOnInterrupt: true })] });
    console.log(`[invariants.property] ${testEngine()}: ${RUNS} runs passed in ${Date.now() - started} ms`);
    if (process.env.FC_COVERAGE)
      console.log(
        [...coverage]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${String(n).padStart(6)}  ${k}`)
          .join("\n"),
      );
  }, 900_000);
});
