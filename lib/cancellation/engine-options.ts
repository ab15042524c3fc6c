import type { ToolRegistry } from "../tools/registry";
import type { ActiveToolCall, CancellationPlan } from "./plan";

export interface EngineOptions {
  registry: ToolRegistry;
  /** Wait before re-querying a released resource (the seed: 2–5 s). */
  verifyDelayMs?: number;
  /** How long cooperative children get to stop before the engine moves on (they stay watched). */
  settleTimeoutMs?: number;
  cancelAttempts?: number;
  cancelBackoffMs?: number;
  /** A cancel or rollback call that takes longer than this counts as failed (then retried). */
  cancelTimeoutMs?: number;
  /** How often the maintenance pass asks the service again about an uncertain item (default 10 s). */
  reconcileIntervalMs?: number;
  /** An optional model planner; its plan is validated and falls back to the rules (see plan.ts). */
  planner?: (calls: ActiveToolCall[]) => Promise<CancellationPlan>;
  /** How long one pass waits for children whose stop contract runs in their owner's process (owner-hosted.ts; default 30 s). */
  ownerSettleTimeoutMs?: number;
}
