import { CancellationEngine } from "../../lib/cancellation/engine";
import type { EngineOptions } from "../../lib/cancellation/engine-options";
import { getCancellationSummary } from "../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../lib/cancellation/steps/1-record-boundary";
import type { CancellationSummary } from "../../lib/cancellation/summarize";
import type { Database } from "../../lib/db/client";
import type { Faults } from "../../lib/demo/faults";
import { startDemoServer, type DemoServer } from "../../lib/demo/server";
import { SERVICES, witnessLog, type ServiceName, type WitnessEntry } from "../../lib/demo/store";
import { demoTools, type DemoToolOptions } from "../../lib/demo/tools";
import { createTask } from "../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../lib/ledger/schedule-work-item";
import type { RiskLevel } from "../../lib/ledger/states";
import { ToolRegistry } from "../../lib/tools/registry";
import { WorkerPool } from "../../lib/workers/worker-pool";
import { bindCalls, expectWitnessConsistent, witnessFor, type CallBinding } from "../../lib/conformance/witness-check";
import { LedgerEvent } from "../../lib/ledger/events";
import { LedgerEventRecordSchema } from "../../lib/api/event-schemas";

/**
 * The demo world wired to Stopline for integration tests: the demo services (in-memory store), the demo
 * tools in a registry, a worker pool and a started cancellation engine on the given ledger — plus the
 * helpers a fault scenario needs (fault controls over HTTP, bounded waits, ledger/witness snapshots).
 */
export interface DemoWorld {
  database: Database;
  demo: DemoServer;
  registry: ToolRegistry;
  pool: WorkerPool;
  engine: CancellationEngine;
  close(): Promise<void>;
}

export interface DemoWorldOptions {
  tools?: Omit<DemoToolOptions, "baseUrl">;
  engine?: Omit<EngineOptions, "registry">;
  maintenanceMs?: number;
  concurrency?: number;
  /** The worker pool's lease and poll interval; `start: false` leaves it stopped (a test plays the worker itself). */
  pool?: { start?: boolean; leaseMs?: number; pollMs?: number };
  /** Where the tools reach the services: by default the demo server itself; e.g. a tap in front of it. */
  via?: (demoUrl: string) => Promise<string>;
}

export async function bootDemoWorld(database: Database, options: DemoWorldOptions = {}): Promise<DemoWorld> {
  const demo = await startDemoServer({ file: ":memory:" });
  const registry = new ToolRegistry();
  const baseUrl = options.via ? await options.via(demo.url) : demo.url;
  for (const tool of demoTools({ baseUrl, ...options.tools })) registry.register(tool);
  const pool = new WorkerPool({
    database,
    registry,
    concurrency: options.concurrency ?? 8,
    leaseMs: options.pool?.leaseMs ?? 10_000,
    pollMs: options.pool?.pollMs ?? 50,
  });
  if (options.pool?.start !== false) pool.start();
  const engine = new CancellationEngine(database, { registry, ...options.engine }).start(options.maintenanceMs ?? 100);
  return {
    database,
    demo,
    registry,
    pool,
    engine,
    async close() {
      await pool.stop();
      await engine.stop();
      await demo.close();
    },
  };
}

/** Sets a service's fault controls through its HTTP control endpoint (what the console does). */
export async function setFaults(world: DemoWorld, service: ServiceName, faults: Faults): Promise<void> {
  const res = await fetch(`${world.demo.url}/${service}/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(faults),
  });
  if (!res.ok) throw new Error(`setting faults of ${service} failed: ${res.status} ${await res.text()}`);
}

export async function clearFaults(world: DemoWorld): Promise<void> {
  for (const s of SERVICES) await setFaults(world, s, {});
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value; fails after `ms` with `what` in the message. */
export async function until<T>(what: string, check: () => Promise<T> | T, ms = 8_000, everyMs = 20): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await sleep(everyMs);
  }
}

export const lastWitnessSeq = (world: DemoWorld) => witnessLog(world.demo.db).at(-1)?.seq ?? 0;
export const witnessSince = (world: DemoWorld, seq: number, service?: ServiceName): WitnessEntry[] =>
  witnessLog(world.demo.db, service).filter((w) => w.seq > seq);

export async function newTask(world: DemoWorld, title: string, riskLevel: RiskLevel = "high") {
  return createTask(world.database, { title, ownerId: "alice", riskLevel }, "agent:demo");
}

/** Schedules a call of a registered demo tool, declared exactly as the tool declares itself. */
export async function scheduleTool(world: DemoWorld, taskId: string, toolName: string, input: unknown) {
  const tool = world.registry.require(toolName);
  return scheduleWorkItem(
    world.database,
    { taskId, kind: tool.kind, toolName, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, input },
    "agent:demo",
  );
}

export const stop = (world: DemoWorld, taskId: string) => requestCancellation(world.database, { taskId, reason: "user pressed Stop", actor: "user:alice" });

export const itemRow = (world: DemoWorld, id: string) => world.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
export const taskRow = (world: DemoWorld, id: string) => world.database.prisma.task.findUniqueOrThrow({ where: { id } });

export const hasEvent = async (world: DemoWorld, workItemId: string, type: string) =>
  (await world.database.prisma.ledgerEvent.count({ where: { workItemId, type } })) > 0;

/** Everything the ledger says about a task, the summary, and the witness of its calls. */
export interface Snapshot {
  summary: CancellationSummary;
  items: Awaited<ReturnType<Database["prisma"]["workItem"]["findMany"]>>;
  sideEffects: Awaited<ReturnType<Database["prisma"]["sideEffect"]["findMany"]>>;
  resources: Awaited<ReturnType<Database["prisma"]["resource"]["findMany"]>>;
  reviews: Awaited<ReturnType<Database["prisma"]["reviewItem"]["findMany"]>>;
  /** The task's ledger trail, one line per event ("work_item.uncertain running→uncertain by worker:… — reason"). */
  trail: string[];
  calls: CallBinding[];
  witness: WitnessEntry[];
  /** Witness actions of the task's calls, in order ("shop:order_created", …). */
  actions: string[];
}

export async function snapshot(world: DemoWorld, taskId: string, options: { generations?: string[] } = {}): Promise<Snapshot> {
  const prisma = world.database.prisma;
  const [summary, items, sideEffects, resources, reviews, events] = await Promise.all([
    getCancellationSummary(world.database, taskId),
    prisma.workItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } }),
    prisma.sideEffect.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } }),
    prisma.resource.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } }),
    prisma.reviewItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } }),
    prisma.ledgerEvent.findMany({ where: { taskId }, orderBy: { seq: "asc" } }),
  ]);
  // Every event the scenario wrote is one the API's contract describes (type and data shape, lib/api/event-schemas.ts).
  for (const e of events) {
    const parsed = LedgerEventRecordSchema.safeParse({ ...e, createdAt: e.createdAt.toISOString() });
    if (!parsed.success)
      throw new Error(`event ${e.seq} (${e.type}) breaks the API's event contract: ${parsed.error.message}\ndata: ${JSON.stringify(e.data)}`);
  }
  const trail = events.map((e) => {
    const step =
      e.type === LedgerEvent.cancellationStep
        ? ` [${(e.data as { action?: string }).action}${(e.data as { success?: boolean }).success === false ? " FAILED" : ""}]`
        : "";
    return `${e.createdAt.toISOString().slice(11, 23)} ${e.type}${step}${e.fromState || e.toState ? ` ${e.fromState ?? ""}→${e.toState ?? ""}` : ""} by ${e.actor}${e.reason ? ` — ${e.reason}` : ""}`;
  });
  const calls = bindCalls(world.demo.db, items, options);
  const witness = witnessFor(witnessLog(world.demo.db), calls);
  if (process.env.FAULT_MATRIX_TRACE) console.log(`ledger trail of task ${taskId}:\n  ${trail.join("\n  ")}`);
  return { summary, items, sideEffects, resources, reviews, trail, calls, witness, actions: witness.map((w) => `${w.service}:${w.action}`) };
}

/** The checker every scenario runs: no claim in the summary (or ledger) contradicts the witness. */
export function checkAgainstWitness(s: Snapshot): void {
  try {
    expectWitnessConsistent({
      summary: s.summary,
      witness: s.witness,
      calls: s.calls,
      ledger: { workItems: s.items, resources: s.resources },
    });
  } catch (error) {
    // The ledger's own account of how it got there, to locate the defect.
    (error as Error).message += `\nledger trail:\n  ${s.trail.join("\n  ")}`;
    throw error;
  }
}
