import { db } from "../db/client";
import { CancellationEngine } from "../cancellation/engine";
import { modelFromEnvironment, planWithModel } from "../cancellation/model-planner";
import type { ActiveToolCall } from "../cancellation/plan";
import { WorkerPool } from "../workers/worker-pool";
import { appRegistry } from "./app-registry";

const globalForBackground = globalThis as unknown as { stoplineBackground?: { pool: WorkerPool | null; engine: CancellationEngine } };

/**
 * Starts this process's background work once: the cancellation engine (boundaries → plans → stops →
 * verification → review items, plus the maintenance pass that resumes after a restart) and, unless
 * STOPLINE_WORKERS=0, an in-process worker pool for the registered tools.
 */
export function startBackground(options: { workers?: number; workerId?: string } = {}) {
  if (globalForBackground.stoplineBackground) return globalForBackground.stoplineBackground;
  const database = db();
  const registry = appRegistry();
  // Optional model planner (STOPLINE_PLANNER_MODEL): it only advises; its plan is validated, rules otherwise.
  const model = modelFromEnvironment();
  const planner = model ? (calls: ActiveToolCall[]) => planWithModel({ calls, reason: "user_interrupt", model, signal: AbortSignal.timeout(5_000) }) : undefined;
  const engine = new CancellationEngine(database, { registry, planner }).start();
  const workers = options.workers ?? Number(process.env.STOPLINE_WORKERS ?? 8);
  const pool = workers > 0 ? new WorkerPool({ database, registry, concurrency: workers, workerId: options.workerId }).start() : null;
  globalForBackground.stoplineBackground = { pool, engine };
  return globalForBackground.stoplineBackground;
}

export async function stopBackground() {
  const running = globalForBackground.stoplineBackground;
  if (!running) return;
  globalForBackground.stoplineBackground = undefined;
  await running.pool?.stop();
  await running.engine.stop();
}
