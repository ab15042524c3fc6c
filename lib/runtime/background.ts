import path from "node:path";
import { db } from "../db/client";
import { PROJECT_ROOT } from "../db/config";
import { startDemoServer, type DemoServer } from "../demo/server";
import { startEscalationDeliveries } from "../escalation/deliverer";
import { demoTools } from "../demo/tools";
import { agentModelFromEnvironment, MODEL_REPLY_TOOL, modelReplyTool } from "../agent/model-reply";
import { startTurnSettler } from "../agent/settle-turn";
import { attachHostedTools, type HostedTools } from "../tools/hosted/hosted-tools";
import { CancellationEngine } from "../cancellation/engine";
import { modelFromEnvironment, planWithModel } from "../cancellation/model-planner";
import type { ActiveToolCall } from "../cancellation/plan";
import { liveLedger } from "../events/live";
import { startObservability, stopObservability } from "../observability";
import { WorkerPool } from "../workers/worker-pool";
import { appRegistry } from "./app-registry";
import { keepWorkerProcessLease } from "../ledger/process-lease";
import { retentionPolicy } from "../retention/policy";
import { startRetention } from "../retention/start-retention";

/**
 * The demo world (lib/demo): its tools are registered in every process that runs work (app and worker
 * processes); its services run in the app process only (startDemoServices), at STOPLINE_DEMO_URL.
 */
export const demoServicesUrl = () =>
  process.env.STOPLINE_DEMO_URL ?? `http://127.0.0.1:${Number(process.env.STOPLINE_DEMO_PORT ?? Number(process.env.PORT ?? 3000) + 1)}`;

function registerDemoTools(registry: ReturnType<typeof appRegistry>) {
  // The demo agent's optional real model (STOPLINE_AGENT_MODEL): its replies run as model.generate.
  const model = agentModelFromEnvironment();
  if (model && !registry.local(MODEL_REPLY_TOOL)) registry.register(modelReplyTool(model));
  if (process.env.STOPLINE_DEMO === "0") return;
  // STOPLINE_DEMO_POLL_MS: how often a running export is polled (tests slow it down to hold a Stop mid-way).
  const pollMs = process.env.STOPLINE_DEMO_POLL_MS ? Number(process.env.STOPLINE_DEMO_POLL_MS) : undefined;
  for (const tool of demoTools({ baseUrl: demoServicesUrl(), pollMs })) if (!registry.local(tool.name)) registry.register(tool);
}

export async function startDemoServices(): Promise<DemoServer | null> {
  if (process.env.STOPLINE_DEMO === "0" || process.env.STOPLINE_DEMO_URL) return null;
  const file = path.resolve(PROJECT_ROOT, process.env.STOPLINE_DEMO_DB ?? path.join("data", "demo-services.db"));
  const port = Number(new URL(demoServicesUrl()).port);
  return startDemoServer({ file, port });
}

type Background = {
  pool: WorkerPool | null;
  releaseProcessLease: () => Promise<void>;
  engine: CancellationEngine;
  escalations: ReturnType<typeof startEscalationDeliveries>;
  stopTurnSettler: () => Promise<void>;
  hosted: HostedTools;
  stopRetention: () => Promise<void>;
};
const globalForBackground = globalThis as unknown as { stoplineBackground?: Background };

/**
 * Starts this process's background work once: the cancellation engine (boundaries → plans → stops →
 * verification → review items, plus the maintenance pass that resumes after a restart) and, unless
 * STOPLINE_WORKERS=0, an in-process worker pool for the registered tools.
 */
export function startBackground(options: { workers?: number; workerId?: string } = {}) {
  if (globalForBackground.stoplineBackground) return globalForBackground.stoplineBackground;
  // The retention policy first: a bad STOPLINE_RETENTION_DAYS stops the process here, before anything runs.
  const retention = retentionPolicy();
  const database = db();
  // The live view reads what other processes commit and announces it here (a Stop recorded by another instance
  // reaches this process's running children at once); SSE streams share it.
  liveLedger(database);
  void startObservability(database); // metrics, traces and JSON logs, as the environment asks (lib/observability)
  const registry = appRegistry();
  registerDemoTools(registry);
  // Tools that outside processes run and answer for (SDK workers, AI SDK agents): the engine asks them (issue 23).
  const hosted = attachHostedTools(registry, database);
  // Optional model planner (STOPLINE_PLANNER_MODEL): it only advises; its plan is validated, rules otherwise.
  const model = modelFromEnvironment();
  const planner = model
    ? (calls: ActiveToolCall[]) => planWithModel({ calls, reason: "user_interrupt", model, signal: AbortSignal.timeout(5_000) })
    : undefined;
  const engine = new CancellationEngine(database, { registry, planner }).start();
  const workers = options.workers ?? Number(process.env.STOPLINE_WORKERS ?? 8);
  const pool = workers > 0 ? new WorkerPool({ database, registry, concurrency: workers, workerId: options.workerId }).start() : null;
  // The pool's process lease (`worker:<id>`): while this process lives it is renewed; once it is gone, its children's
  // leases are recovered at once and the engine asks their services what happened (issue 19 §2) — they are never
  // called "still running" on the word of a lease that a dead process can no longer give up.
  const releaseProcessLease = pool ? keepWorkerProcessLease(database, pool.workerId) : async () => {};
  // Escalations (review items past their deadline, high-risk orphans) delivered to the configured channels.
  const escalations = startEscalationDeliveries(database, { registry });
  // The demo agent ends its chat turns when their work has settled (lib/agent/settle-turn.ts).
  const stopTurnSettler = startTurnSettler(database);
  // Retention (STOPLINE_RETENTION_DAYS; unset keeps everything): settled tasks older than it leave the hot tables after
  // their audit export is written (lib/retention). One process at a time holds the "retention" lease.
  const stopRetention = startRetention(database, retention);
  globalForBackground.stoplineBackground = { pool, releaseProcessLease, engine, escalations, stopTurnSettler, hosted, stopRetention };
  return globalForBackground.stoplineBackground;
}

export async function stopBackground() {
  const running = globalForBackground.stoplineBackground;
  if (!running) return;
  globalForBackground.stoplineBackground = undefined;
  await running.pool?.stop();
  await running.releaseProcessLease();
  await running.engine.stop();
  await running.escalations.stop();
  await running.stopTurnSettler();
  await running.stopRetention();
  running.hosted.stop();
  await stopObservability();
}
