import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { refFor } from "../cancellation/call-ref";
import { executeCancellation, finishCancellation } from "../cancellation/execute-cancellation";
import { getCancellationSummary } from "../cancellation/get-cancellation-summary";
import { requestCancellation } from "../cancellation/steps/1-record-boundary";
import { claimWorkItem } from "../ledger/claim-work-item";
import { createTask } from "../ledger/create-task";
import { recoverExpiredLeases } from "../ledger/recover-expired-leases";
import { scheduleWorkItem } from "../ledger/schedule-work-item";
import { isStoppedItem } from "../ledger/states";
import type { CallRef, ToolDefinition } from "../tools/contract";
import { ToolRegistry } from "../tools/registry";
import { runWorkItem } from "../workers/run-work-item";
import { CASE_TITLES, CONFORMANCE_CASES, ConformanceCase, NEEDS_COMMITMENT } from "./cases";
import { caseVerdict, Verdict, type ServiceSays } from "./verdict";
import { Gate, instrument, underWay, type CaseResult, type Instrumentation } from "./instrument";

export { failedCases, formatTable, type CaseResult } from "./instrument";

/** A tool under test: its definition (as registered), an input it accepts, and optionally the author's own witness. */
export interface ConformanceSubject {
  tool: ToolDefinition;
  input: unknown;
  /** The author's own record of what the service did for this call (e.g. the service's log, by idempotency key). */
  witness?: (ref: CallRef) => Promise<ServiceSays>;
}

interface Options {
  cases?: readonly ConformanceCase[];
  /** How long a case waits for the tool (and the engine) at most. */
  caseTimeoutMs?: number;
}

const ACTOR = "system:conformance";
const STOPPER = "person:conformance";

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | "timeout"> =>
  Promise.race([p, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms))]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitUntil(done: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(20);
}

/**
 * Runs the seeds' race list against one tool, on a real ledger and the real engine and worker code, each case its
 * own task: the call is put in position, Stop is pressed, Stopline does what it does (boundary, plan, stop through
 * the tool's mechanism, reconciliation, verification), and then the tool's own service is asked — inspect() by the
 * call's operation id / idempotency key, and the witness hook — what really happened. Each case is judged by
 * `caseVerdict` (verdict.ts): an overclaim (a stop reported for something that took effect or still runs) fails the
 * kit, and so does a commitment that never passed the checkpoint; a case whose point was never reached, or whose
 * service nobody could ask, is said to be so — never a pass.
 */
export async function runConformance(database: Database, subject: ConformanceSubject, options: Options = {}): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of options.cases ?? CONFORMANCE_CASES) results.push(await runCase(database, subject, c, options.caseTimeoutMs ?? 20_000));
  return results;
}

async function runCase(database: Database, subject: ConformanceSubject, which: ConformanceCase, timeoutMs: number): Promise<CaseResult> {
  const { tool } = subject;
  const title = CASE_TITLES[which];
  const skip = (why: string): CaseResult => ({ case: which, title, stopline: why, reported: null, service: "not_asked", verdict: Verdict.notApplicable });
  if (NEEDS_COMMITMENT.includes(which) && !tool.commitsEffect) return skip("does not apply: the tool commits no effect");
  if (which === ConformanceCase.cancelEndpointDown && !tool.cancel) return skip("does not apply: the tool has no cancel()");

  const gate = new Gate();
  const how: Instrumentation =
    which === ConformanceCase.duringRead
      ? { gate: { at: underWay(tool), gate } }
      : which === ConformanceCase.beforeCommitment || which === ConformanceCase.staleWorkerWakesLate
        ? { gate: { at: tool.commitsEffect ? "checkpoint" : "start", gate } }
        : which === ConformanceCase.duringSubmission || which === ConformanceCase.workerKilledAfterSubmit
          ? { gate: { at: "afterSubmitted", gate } }
          : which === ConformanceCase.cancelEndpointDown
            ? { gate: { at: tool.commitsEffect ? "afterSubmitted" : "firstContact", gate }, cancelDown: true }
            : which === ConformanceCase.replyLostAfterCommit
              ? { loseReply: true }
              : {};
  how.fired = { replyLost: false, cancelRefused: false };
  const runnable = instrument(tool, how);
  const registry = new ToolRegistry().register(runnable);
  const engine = { registry, verifyDelayMs: 50, settleTimeoutMs: 2_000, cancelAttempts: 2, cancelBackoffMs: 20, cancelTimeoutMs: 2_000 };

  const task = await createTask(database, { title: `conformance: ${tool.name} — ${which}`, ownerId: "conformance" }, ACTOR);
  const item = await scheduleWorkItem(
    database,
    {
      taskId: task.id,
      kind: tool.kind,
      toolName: tool.name,
      mechanism: tool.mechanism,
      commitsEffect: tool.commitsEffect,
      intentVersion: 1,
      input: subject.input as never,
      correlationId: `conformance-${which}`,
    },
    ACTOR,
  );
  const stop = async () => {
    await requestCancellation(database, { taskId: task.id, reason: `conformance: ${which}`, actor: STOPPER });
  };
  // A dead or stale worker: no heartbeats, a lease that runs out at once.
  const deadWorker = which === ConformanceCase.workerKilledAfterSubmit || which === ConformanceCase.staleWorkerWakesLate;
  const run = async (): Promise<{ done: Promise<unknown> }> => {
    const claimed = await claimWorkItem(database, { workerId: `conformance-${which}`, toolNames: [tool.name], leaseMs: deadWorker ? 300 : 30_000 });
    if (claimed?.id !== item.id)
      throw new Error(
        `the conformance kit claimed ${claimed?.id ?? "nothing"} instead of its own call ${item.id}: is another worker serving ${tool.name} on this database?`,
      );
    return {
      done: runWorkItem({
        database,
        tool: runnable,
        item: claimed as WorkItem,
        workerId: `conformance-${which}`,
        leaseMs: deadWorker ? 300 : 30_000,
        heartbeatMs: deadWorker ? 3_600_000 : 500,
      }),
    };
  };

  let running: Promise<unknown> | null = null;
  // The case needs the call held at its point; a call that ended before reaching it makes it a Stop after the end.
  let missed = false;
  let why = "the call ended before this point";
  if (which === ConformanceCase.beforeDispatch) {
    await stop();
  } else if (which === ConformanceCase.afterSuccess || which === ConformanceCase.replyLostAfterCommit) {
    running = (await run()).done;
    await withTimeout(running, timeoutMs);
    await stop();
  } else {
    const started = (await run()).done;
    running = started;
    const reached = await withTimeout(Promise.race([gate.reached, started.then(() => "ended" as const)]), timeoutMs);
    missed = reached !== undefined;
    if (deadWorker && reached !== "ended") {
      // The worker stops answering; its lease runs out and is recovered (as the maintenance pass does).
      await sleep(400);
      await recoverExpiredLeases(database);
    }
    await stop();
  }
  // The engine's pass; the held call goes on (a stale worker wakes now) while the engine waits for it.
  const pass = executeCancellation(database, task.id, engine);
  // The cancel endpoint is down: the call stays where it is until Stopline has tried it (a call that finished first
  // would leave nothing to cancel, and the case would test nothing).
  if (which === ConformanceCase.cancelEndpointDown && !missed) await waitUntil(() => how.fired!.cancelRefused, Math.min(timeoutMs, 5_000));
  gate.open();
  await pass;
  if (running) await withTimeout(running, timeoutMs);
  await finishCancellation(database, task.id, engine);

  const summary = await waitForSummary(database, task.id, timeoutMs, () => finishCancellation(database, task.id, engine));
  const call = summary.tool_calls.find((c) => c.tool_call_id === item.correlationId);
  const current = await database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
  const service = await serviceSays(subject, await refFor(database, current));
  const reported = call?.outcome.kind ?? null;
  // A fault that never fired tested nothing: the reply is "lost" only if the tool reported submitting; the cancel
  // endpoint is "down" only if Stopline called it.
  if (which === ConformanceCase.replyLostAfterCommit && !how.fired.replyLost) [missed, why] = [true, "the tool never reported submitting: no reply to lose"];
  if (which === ConformanceCase.cancelEndpointDown && !how.fired.cancelRefused && !missed) {
    // A call without effects that stopped on its own signal (an MCP read: the run's cancel went out with the signal)
    // needed no cancel endpoint: the case does not apply to it, it did not miss.
    if (!tool.commitsEffect && current.cancelDispatchedAt === null && isStoppedItem(current.status))
      return skip(`does not apply: the call stopped on its own signal (${call?.outcome.label ?? current.status}); Stopline needed no cancel endpoint`);
    [missed, why] = [true, "Stopline never called the cancel endpoint"];
  }
  return {
    case: which,
    title,
    stopline: call ? `${missed ? `(not reached: ${why}) ` : ""}${call.outcome.label}` : "not in the summary",
    reported,
    service,
    verdict: caseVerdict({ reported, service, commitsEffect: tool.commitsEffect, reached: !missed, gatedAtCheckpoint: how.gate?.at === "checkpoint" }),
  };
}

/** The summary once the engine has settled it (re-running its late steps meanwhile), or as it is at the timeout. */
async function waitForSummary(database: Database, taskId: string, timeoutMs: number, nudge: () => Promise<unknown>) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const summary = await getCancellationSummary(database, taskId);
    if (summary.status !== "IN_PROGRESS" || Date.now() > end) return summary;
    await sleep(200);
    await nudge();
  }
}

/** The service's answer: inspect() and the witness hook; "committed" if either saw the effect. */
async function serviceSays(subject: ConformanceSubject, ref: CallRef): Promise<ServiceSays> {
  // A stop reaches a service within its own notice time (a stream it is writing to closed a moment ago): "running"
  // is asked again for up to STOP_NOTICE_MS — a call still running after that, or one that completes, is judged as such.
  const deadline = Date.now() + STOP_NOTICE_MS;
  for (;;) {
    const said = await serviceSaysOnce(subject, ref);
    if (said !== "running" || Date.now() >= deadline) return said;
    await sleep(50);
  }
}

/** How long a service may take to notice a stop that was delivered (a closed stream, an aborted request). */
const STOP_NOTICE_MS = 2_000;

async function serviceSaysOnce(subject: ConformanceSubject, ref: CallRef): Promise<ServiceSays> {
  const answers: ServiceSays[] = [];
  if (subject.tool.inspect) {
    try {
      const o = await subject.tool.inspect(ref);
      answers.push(o.status);
    } catch {
      answers.push("unknown");
    }
  }
  if (subject.witness) answers.push(await subject.witness(ref).catch(() => "unknown" as const));
  if (!answers.length) return "not_asked";
  for (const a of ["committed", "running", "unknown", "not_committed"] as const) if (answers.includes(a)) return a;
  return answers[0];
}
