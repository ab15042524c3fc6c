import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { refFor } from "../../cancellation/call-ref";
import { getCancellationSummary } from "../../cancellation/get-cancellation-summary";
import { requestCancellation } from "../../cancellation/steps/1-record-boundary";
import type { CancellationSummary } from "../../cancellation/summarize";
import { setFaults } from "../../demo/faults";
import { startDemoServer, type DemoServer } from "../../demo/server";
import { SERVICES, witnessLog } from "../../demo/store";
import { demoTools } from "../../demo/tools";
import { createTask } from "../../ledger/create-task";
import { scheduleWorkItem } from "../../ledger/schedule-work-item";
import { decideReviewItem } from "../../review/decide-review-item";
import { createTestDatabase, type TestDatabase, type TestEngine } from "../../db/scratch-database";
import { bindCalls, witnessFor } from "../witness-check";
import type { ToolDefinition } from "../../tools/contract";
import { ToolRegistry } from "../../tools/registry";
import type { ServiceSays } from "../verdict";
import { FAILING_KINDS, FindingKind, judgeScenario, type CallFacts, type Finding } from "./judge";
import { describeScenario, generateScenario, type Scenario } from "./scenario";
import { processEnv, WORKER_OPTIONS } from "./settings";

/**
 * The random (+ crash) mode of the stop-conformance kit (issue 19): N random scenarios against the demo tools, each
 * judged only by the services — the tools' inspect() and the demo services' witness logs (judge.ts).
 *
 * Fast by reuse: `batch` slots run side by side, each with its own ledger, its own demo world (so that one
 * scenario's service-wide faults never touch another's) and Stopline's real runtime in child processes (a worker
 * pool and the cancellation engine, app-process.ts); a slot runs its scenarios one after another. In crash mode
 * the slot's worker and app are separate processes, and a scenario SIGKILLs one of them at a random moment and
 * starts it again.
 */
export interface RandomOptions {
  count: number;
  seed: number;
  db: TestEngine;
  crash?: boolean;
  /** Only these scenario indexes (replay). */
  only?: number[];
  /** Slots run side by side. */
  batch?: number;
  /** Restrict the scenarios to these tools (default: a mix of every demo tool). */
  tools?: string[];
  /** How long a scenario waits for its Stop to settle. */
  settleTimeoutMs?: number;
  /** The kit's self-test: plant a lying tool in the worker processes (planted.ts) that the run must catch. */
  plant?: "dishonest_order";
  /** Called after each scenario (progress). */
  onResult?: (r: ScenarioResult, done: number, total: number) => void;
}

export interface ScenarioResult {
  scenario: Scenario;
  findings: Finding[];
  status: string;
  ms: number;
}

export interface RandomRun {
  results: ScenarioResult[];
  ms: number;
  failing: ScenarioResult[];
}

const ACTOR = "system:conformance";
const STOPPER = "person:conformance";
const APPROVER = { id: "approver-conformance", name: "approver@conformance.test", role: "operator" as const, kind: "person" as const };
const APP_PROCESS = path.resolve(import.meta.dirname, "app-process.ts");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The kit's own requests, retried as a client would while the database says it is briefly unavailable (a loaded machine, a process killed mid-write). */
async function retrying<T>(f: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await f();
    } catch (error) {
      if (i >= attempts || (error as { code?: string }).code !== "unavailable") throw error;
      await sleep(500 * i);
    }
  }
}

// ---- the slot's processes ------------------------------------------------------------------------------

interface Proc {
  proc: ChildProcess;
  ready: Promise<void>;
  /** A standby process is loaded and waits for "go" (the same as `ready` for one started at once). */
  standing: Promise<void>;
  exited: Promise<void>;
}

function spawnProc(databaseUrl: string, demoUrl: string, role: "app" | "worker" | "both", id: string, standby = false, plant = ""): Proc {
  const proc = spawn(process.execPath, ["--import", "tsx", APP_PROCESS, databaseUrl, demoUrl, role, id], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...processEnv(), RANDOM_STANDBY: standby ? "1" : "0", RANDOM_PLANT: plant },
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr = (stderr + d).slice(-4_000);
    if (process.env.RANDOM_TRACE) process.stderr.write(`[${id}] ${d}`);
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  let out = "";
  const seen = (event: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => out.includes(`"event":"${event}"`) && resolve();
      proc.stdout!.on("data", look);
      look();
      void exited.then(() => reject(new Error(`the ${role} process ${id} exited before it was ${event}: ${stderr}`)));
    });
  proc.stdout!.on("data", (d) => (out += d));
  const ready = seen("ready");
  const standing = standby ? seen("standby") : ready;
  ready.catch(() => {});
  standing.catch(() => {});
  return { proc, ready, exited, standing };
}

async function kill9(p: Proc | undefined) {
  if (!p || p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.kill("SIGKILL");
  await p.exited;
}

class Slot {
  readonly procs: Partial<Record<"app" | "worker" | "both", Proc>> = {};
  /** A loaded process per role waiting for "go": the next start after a kill -9. */
  readonly spares: Partial<Record<"app" | "worker", Proc>> = {};
  readonly tools = new Map<string, ToolDefinition>();
  readonly registry = new ToolRegistry();
  #restarts = 0;
  private constructor(
    readonly id: number,
    readonly ledger: TestDatabase,
    readonly demo: DemoServer,
    readonly dir: string,
    readonly crash: boolean,
    readonly plant: string,
  ) {
    for (const tool of demoTools({ baseUrl: demo.url, callTimeoutMs: WORKER_OPTIONS.callTimeoutMs })) {
      this.tools.set(tool.name, tool);
      this.registry.register(tool);
    }
  }

  static async open(id: number, db: TestEngine, crash: boolean, plant = ""): Promise<Slot> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "stopline-random-"));
    const [ledger, demo] = await Promise.all([createTestDatabase(db), startDemoServer({ file: path.join(dir, "demo.db"), port: 0 })]);
    const slot = new Slot(id, ledger, demo, dir, crash, plant);
    for (const role of crash ? (["app", "worker"] as const) : (["both"] as const)) slot.start(role);
    if (crash) for (const role of ["app", "worker"] as const) slot.spares[role] = slot.spawnSpare(role);
    await Promise.all([...Object.values(slot.procs).map((p) => p!.ready), ...Object.values(slot.spares).map((p) => p!.standing)]);
    return slot;
  }

  start(role: "app" | "worker" | "both") {
    this.procs[role] = spawnProc(this.ledger.url, this.demo.url, role, `slot${this.id}-${role}-${this.#restarts++}`, false, this.plant);
  }

  spawnSpare(role: "app" | "worker") {
    return spawnProc(this.ledger.url, this.demo.url, role, `slot${this.id}-${role}-${this.#restarts++}`, true, this.plant);
  }

  /** kill -9 of one of the slot's processes, and the same process started again after a pause. */
  async crashAndRestart(role: "app" | "worker", restartAfterMs: number) {
    await kill9(this.procs[role]);
    await sleep(restartAfterMs);
    const spare = this.spares[role]!;
    this.spares[role] = this.spawnSpare(role);
    spare.proc.stdin!.write("go\n");
    this.procs[role] = spare;
    await spare.ready;
  }

  async close() {
    await Promise.all([...Object.values(this.procs), ...Object.values(this.spares)].map((p) => kill9(p)));
    await this.demo.close();
    await this.ledger.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ---- one scenario -------------------------------------------------------------------------------------

async function runScenario(slot: Slot, s: Scenario, settleTimeoutMs: number): Promise<ScenarioResult> {
  const started = Date.now();
  const { database } = slot.ledger;
  for (const service of SERVICES) setFaults(slot.demo.db, service, s.faults[service] ?? {});
  const witnessFrom = witnessLog(slot.demo.db).at(-1)?.seq ?? 0;
  // (a task created twice by a retry is harmless: the second one has no calls; a call is keyed, so a retry cannot add one twice)
  const task = await retrying(() => createTask(database, { title: `random conformance #${s.index} (seed ${s.seed})`, ownerId: "conformance" }, ACTOR));
  const items = [];
  for (const [k, c] of s.calls.entries()) {
    const tool = slot.tools.get(c.tool)!;
    items.push(
      await retrying(() =>
        scheduleWorkItem(
          database,
          {
            taskId: task.id,
            kind: tool.kind,
            toolName: tool.name,
            mechanism: tool.mechanism,
            commitsEffect: tool.commitsEffect,
            intentVersion: 1,
            input: c.input as never,
            correlationId: `call-${k}-${c.tool}`,
            idempotencyKey: `${task.id}-call-${k}`,
          },
          ACTOR,
        ),
      ),
    );
  }
  if (s.from === "claimed") {
    const end = Date.now() + 15_000;
    while (Date.now() < end && !(await database.prisma.workItem.findFirst({ where: { taskId: task.id, startedAt: { not: null } }, select: { id: true } })))
      await sleep(15);
  }
  const t0 = Date.now();
  const at = (ms: number) => sleep(Math.max(0, t0 + ms - Date.now()));
  const stop = () => retrying(() => requestCancellation(database, { taskId: task.id, reason: `random conformance #${s.index}`, actor: STOPPER }));
  await Promise.all([
    at(s.stopAtMs).then(async () => {
      const first = stop();
      if (s.secondStopAfterMs !== null) await Promise.all([first, sleep(s.secondStopAfterMs).then(stop)]);
      else await first;
    }),
    s.crash ? at(s.crash.atMs).then(() => slot.crashAndRestart(s.crash!.target, s.crash!.restartAfterMs)) : null,
  ]);
  const acted = Date.now();
  let summary = await waitForSettlement(database, task.id, settleTimeoutMs);
  if (process.env.RANDOM_TRACE) {
    const events = await database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    console.error(
      `#${s.index} ${describeScenario(s)}\n  acted +${acted - t0} ms, settled +${Date.now() - t0} ms: ${summary.status} "${summary.user_message}"\n  ${events.map((e) => `${e.createdAt.getTime() - t0} ${e.type} ${e.fromState ?? ""}→${e.toState ?? ""} ${e.actor} ${e.workItemId?.slice(0, 6) ?? ""} ${e.reason ?? ""} ${JSON.stringify(e.data ?? null).slice(0, 300)}`).join("\n  ")}`,
    );
  }
  const findings: Finding[] = [];
  if (s.approve && summary.status !== "IN_PROGRESS") {
    // A person approves each reversal Stopline proposes (exactly the proposal they saw), then the summary is judged again.
    const reviews = await database.prisma.reviewItem.findMany({ where: { taskId: task.id, kind: "approve_compensation", status: "pending" } });
    for (const r of reviews) {
      const proposal = r.proposal as { target?: string | null; expectedVersion?: string | null } | null;
      await decideReviewItem(database, slot.registry, APPROVER, {
        reviewItemId: r.id,
        decision: "approve",
        reason: "random conformance approves",
        target: proposal?.target ?? null,
        expectedVersion: proposal?.expectedVersion ?? null,
      }).catch((error: Error) => findings.push({ kind: FindingKind.kitError, detail: `approving review item ${r.id}: ${error.message}` }));
    }
    if (reviews.length) summary = await getCancellationSummary(database, task.id);
  }
  findings.push(...(await judgeNow(slot, task.id, summary, witnessFrom)));
  return { scenario: s, findings, status: summary.status, ms: Date.now() - started };
}

async function waitForSettlement(database: TestDatabase["database"], taskId: string, timeoutMs: number): Promise<CancellationSummary> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const summary = await retrying(() => getCancellationSummary(database, taskId));
    if (summary.status !== "IN_PROGRESS" || Date.now() > end) return summary;
    await sleep(100);
  }
}

/** Asks the services: inspect() for each call, the witness log for everything; then judges (judge.ts). */
async function judgeNow(slot: Slot, taskId: string, summary: CancellationSummary, witnessFrom: number): Promise<Finding[]> {
  const { database } = slot.ledger;
  const [items, resources] = await Promise.all([
    database.prisma.workItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } }),
    database.prisma.resource.findMany({ where: { taskId } }),
  ]);
  const calls: CallFacts[] = [];
  for (const item of items) {
    const tool = slot.tools.get(item.toolName)!;
    let service: ServiceSays = "not_asked";
    if (tool.inspect)
      service = await tool.inspect(await refFor(database, item)).then(
        (o) => o.status,
        () => "unknown" as const,
      );
    calls.push({ toolCallId: item.correlationId, toolName: item.toolName, commitsEffect: item.commitsEffect, service });
  }
  const all = witnessLog(slot.demo.db);
  // A generation is this task's when it carries the key of this task's inference call: a request an earlier scenario's
  // call gave up on during a latency fault reaches the service later, inside this scenario's window (seed 2027 #102).
  const keys = new Set(items.filter((i) => i.toolName === "inference.generate").map((i) => i.idempotencyKey));
  const generations = all
    .filter(
      (e) =>
        e.seq > witnessFrom && e.service === "inference" && e.action === "generation_started" && keys.has((e.detail as { key?: string } | null)?.key ?? ""),
    )
    .map((e) => e.subject!);
  const bindings = bindCalls(slot.demo.db, items, { generations: items.some((i) => i.toolName === "inference.generate") ? generations : [] });
  return judgeScenario({
    summary,
    calls,
    bindings,
    witness: witnessFor(all, bindings),
    ledger: { workItems: items, resources },
    keys: Object.fromEntries(items.map((i) => [i.correlationId, i.idempotencyKey])),
  });
}

// ---- the run ------------------------------------------------------------------------------------------

export async function runRandom(options: RandomOptions): Promise<RandomRun> {
  const started = Date.now();
  const indexes = options.only?.length ? options.only : Array.from({ length: options.count }, (_, i) => i);
  const scenarios = indexes.map((i) => generateScenario(options.seed, i, { tools: options.tools, crash: options.crash }));
  const batch = Math.max(1, Math.min(options.batch ?? 4, scenarios.length));
  const settleTimeoutMs = options.settleTimeoutMs ?? (options.crash ? 30_000 : 15_000);
  const slots = await Promise.all(Array.from({ length: batch }, (_, i) => Slot.open(i, options.db, !!options.crash, options.plant)));
  const results: ScenarioResult[] = [];
  let next = 0;
  try {
    await Promise.all(
      slots.map(async (slot) => {
        while (next < scenarios.length) {
          const s = scenarios[next++];
          const t = Date.now();
          const r = await runScenario(slot, s, settleTimeoutMs).catch(
            (error: Error): ScenarioResult => ({
              scenario: s,
              findings: [{ kind: FindingKind.kitError, detail: error.stack ?? error.message }],
              status: "?",
              ms: Date.now() - t,
            }),
          );
          results.push(r);
          options.onResult?.(r, results.length, scenarios.length);
        }
      }),
    );
  } finally {
    await Promise.all(slots.map((s) => s.close().catch(() => {})));
  }
  results.sort((a, b) => a.scenario.index - b.scenario.index);
  return { results, ms: Date.now() - started, failing: results.filter((r) => r.findings.some((f) => FAILING_KINDS.includes(f.kind))) };
}

/** Findings by kind. */
export function countByKind(run: RandomRun): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of run.results) for (const k of new Set(r.findings.map((f) => f.kind))) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

/** The findings table: one row per finding, with the seed and index that replay its scenario. */
export function formatFindings(run: RandomRun, options: { seed: number; db: string; crash?: boolean }): string {
  const rows = run.results.flatMap((r) => r.findings.map((f) => ({ r, f })));
  const lines = [
    `random conformance: ${run.results.length} scenario(s) on ${options.db}${options.crash ? " with crashes" : ""}, seed ${options.seed}, in ${(run.ms / 1000).toFixed(1)} s (${(run.results.length / (run.ms / 1000)).toFixed(1)} scenarios/s)`,
  ];
  const statuses: Record<string, number> = {};
  for (const r of run.results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  lines.push(
    `  summaries: ${Object.entries(statuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  if (!rows.length) return [...lines, "  no findings: every summary agreed with the services"].join("\n");
  const counts = countByKind(run);
  lines.push(
    `  findings (scenarios): ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  );
  lines.push("", ["seed", "index", "kind", "scenario", "finding"].join(" │ "));
  for (const { r, f } of rows) {
    lines.push([String(options.seed), String(r.scenario.index), f.kind, describeScenario(r.scenario), f.detail.replace(/\s+/g, " ").slice(0, 400)].join(" │ "));
  }
  lines.push(
    "",
    `replay one: npm run conformance -- --random 1 --seed ${options.seed} --only <index>${options.crash ? " --crash" : ""}${options.db === "postgres" ? " --db postgres" : ""}`,
  );
  return lines.join("\n");
}
