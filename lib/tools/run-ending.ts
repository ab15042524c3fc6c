/**
 * How a call's run ended, decided once for every runner (issue 21 item 3): the in-process worker
 * (lib/workers/run-work-item.ts), the SDK's worker (lib/sdk/worker.ts) and the AI SDK wrapper (lib/sdk/ai.ts). Pure:
 * the runner gathers the facts, this says what the ledger is told. Pure and SDK-safe (no server imports).
 *
 * The rule (docs/ARCHITECTURE.md, "uncertain, not failed"): a runner never reports an ending it does not know.
 * - Once the action may have reached its service — it was accepted (`submitted()`), or a commitment passed its
 *   checkpoint — any failure or stop is UNCERTAIN, settled by asking the service (inspect), never "failed" or
 *   "cancelled".
 * - Remote work that runs on at its service once its start arrived (a provider-side or rollback tool with inspect(),
 *   past its checkpoint): a failure says nothing about what the service did — uncertain (random conformance, seed
 *   2027 #0 on PostgreSQL: an export "failed — it had no effect" that ran to the end).
 * - After a Stop, a provider-side or rollback tool that merely stopped WAITING does not know the remote work stopped:
 *   uncertain, for the engine to cancel and inspect. Only the service's own answer (StoppedError) or a checkpoint that
 *   refused before anything was sent is a stop.
 * - Otherwise a stop is `cancelled`, or `partial` / `cancelled_incomplete` when a partial result was reported; any
 *   other error is `failed`.
 */
import { StoppedError } from "../errors";
import type { RunningCallFacts } from "./tool-context";

export interface RunEndingFacts {
  mechanism: string;
  commitsEffect: boolean;
  /** The tool can be asked what a call did (inspect()) — where the ending is decided or by the server's engine. */
  canInspect: boolean;
  /** `ctx.submitted()` was called: the service accepted the action. */
  submitted: boolean;
  /** A `ctx.checkpoint()` passed: from here the action may reach the service even if its answer is lost. */
  checkpointPassed: boolean;
  /** The call was told to stop (its AbortSignal fired, or a Stop of this step is recorded). */
  stopped: boolean;
  /** The error is the service's own confirmation that the call stopped for good (StoppedError). */
  confirmedStop: boolean;
  /** The error is the checkpoint's refusal after the Stop: nothing was sent. */
  refusedAtCheckpoint: boolean;
  /** The last partial result the call reported, if any. */
  partial: { result: unknown; complete: boolean } | null;
  message: string;
}

export type RunEnding =
  | { outcome: "uncertain"; why: "accepted" | "may_have_reached" | "may_run_on" | "stopped_waiting"; reason: string }
  | { outcome: "cancelled" }
  | { outcome: "partial" | "cancelled_incomplete"; partialResult: unknown }
  | { outcome: "failed"; error: string };

export const isRemoteMechanism = (mechanism: string) => mechanism === "provider_cancel" || mechanism === "rollback";

/** What a run that threw (or was stopped) is reported as. A run that returned is `completed`; this is the rest. */
export function decideRunEnding(f: RunEndingFacts): RunEnding {
  const remote = isRemoteMechanism(f.mechanism);
  if (f.submitted) return { outcome: "uncertain", why: "accepted", reason: `the action was accepted (submitted), and then: ${f.message}` };
  if (f.checkpointPassed && f.commitsEffect)
    return {
      outcome: "uncertain",
      why: "may_have_reached",
      reason: `the checkpoint passed, so the action may have reached the service, and then: ${f.message}`,
    };
  if (f.checkpointPassed && remote && f.canInspect && !f.confirmedStop && !f.stopped)
    return { outcome: "uncertain", why: "may_run_on", reason: `the checkpoint passed, so the remote work may have started, and then: ${f.message}` };
  if (f.stopped || f.confirmedStop || f.refusedAtCheckpoint) {
    if (remote && !f.confirmedStop && !f.refusedAtCheckpoint)
      return {
        outcome: "uncertain",
        why: "stopped_waiting",
        reason: `stopped waiting after the Stop; the remote work is cancelled and inspected by the engine (${f.message})`,
      };
    if (f.partial === null) return { outcome: "cancelled" };
    return { outcome: f.partial.complete ? "partial" : "cancelled_incomplete", partialResult: f.partial.result };
  }
  return { outcome: "failed", error: f.message.slice(0, 4000) || "the tool failed" };
}

/**
 * The rule applied to a running call (lib/tools/tool-context.ts keeps its facts) that threw `error`: what every runner
 * calls. `refusedAtCheckpoint` is the runner's to say (its transport's own cancel_requested, not its abort reason).
 */
export function endingOfRun(
  tool: { mechanism: string; commitsEffect: boolean; canInspect: boolean },
  facts: RunningCallFacts,
  run: { error: unknown; stopped: boolean; refusedAtCheckpoint: boolean },
): RunEnding {
  return decideRunEnding({
    ...tool,
    submitted: facts.submitted !== null,
    checkpointPassed: facts.checkpointPassed,
    stopped: run.stopped,
    confirmedStop: run.error instanceof StoppedError,
    refusedAtCheckpoint: run.refusedAtCheckpoint,
    partial: facts.partial,
    message: run.error instanceof Error ? run.error.message : String(run.error),
  });
}
