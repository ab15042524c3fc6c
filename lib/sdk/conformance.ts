import { CASE_TITLES, CONFORMANCE_CASES, ConformanceCase, NEEDS_COMMITMENT } from "../conformance/cases";
import { Gate, instrument, underWay, type CaseResult, type Instrumentation } from "../conformance/instrument";
import { caseVerdict, Verdict, type ServiceSays } from "../conformance/verdict";
import type { CallRef, ToolDefinition } from "../tools/contract";
import type { StoplineClient, TaskDetail } from "./client";
import { runWorker } from "./worker";

export { CONFORMANCE_CASES, ConformanceCase } from "../conformance/cases";
export { failedCases, formatTable as formatConformanceTable, type CaseResult } from "../conformance/instrument";
export { Verdict, type ServiceSays } from "../conformance/verdict";

export interface StopConformanceOptions {
  /** A client with an agent (or admin) token: creates the cases' tasks and presses Stop. */
  agent: StoplineClient;
  /** A client with a worker token: runs the tool through the worker protocol, as your workers do. */
  worker: StoplineClient;
  /** Your tool, as your worker serves it (the server should register it too, with inspect(), to reconcile). */
  tool: ToolDefinition<any, any>;
  /** An input your tool accepts (small: each case runs the tool once). */
  input: unknown;
  /** Your own record of what the service did for this call, besides inspect() (e.g. the service's log). */
  witness?: (ref: CallRef) => Promise<ServiceSays>;
  cases?: readonly ConformanceCase[];
  /** How long a case waits for the tool and the server at most (default 30 s). */
  caseTimeoutMs?: number;
}

/** Cases that need control the HTTP protocol does not give a tool author (the server's cancel call, a worker's lease). */
const SERVER_SIDE: Partial<Record<ConformanceCase, string>> = {
  [ConformanceCase.cancelEndpointDown]: "runs in-process only (npm run conformance): the server makes the cancel call",
  [ConformanceCase.workerKilledAfterSubmit]: "runs in-process only (npm run conformance): it needs a lease shorter than the protocol allows",
  [ConformanceCase.staleWorkerWakesLate]: "runs in-process only (npm run conformance): it needs a lease shorter than the protocol allows",
};

/**
 * The stop-conformance kit for tool authors, against a running Stopline server (issue 13): the seeds' race list,
 * each case one task — your tool run by the SDK's worker, held at one point of its run (or given a fault), Stop
 * pressed through the API, the server's summary read once it settled — and each case judged by your tool's own
 * inspect() (and your witness) against what Stopline reported. An overclaim (Stopline reporting a stop for something
 * your service shows took effect or still runs) is a failure: `failedCases(results)` is then not empty.
 * Run it against a test server (its tasks are real tasks). Nothing else may serve this tool on that server meanwhile.
 */
export async function runStopConformance(options: StopConformanceOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of options.cases ?? CONFORMANCE_CASES) results.push(await runCase(options, c));
  return results;
}

async function runCase(o: StopConformanceOptions, which: ConformanceCase): Promise<CaseResult> {
  const { tool } = o;
  const title = CASE_TITLES[which];
  const timeoutMs = o.caseTimeoutMs ?? 30_000;
  const skip = (why: string): CaseResult => ({ case: which, title, stopline: why, reported: null, service: "not_asked", verdict: Verdict.notApplicable });
  if (NEEDS_COMMITMENT.includes(which) && !tool.commitsEffect) return skip("does not apply: the tool commits no effect");
  const serverSide = SERVER_SIDE[which];
  if (serverSide) return skip(serverSide);

  const gate = new Gate();
  const how: Instrumentation =
    which === ConformanceCase.duringRead
      ? { gate: { at: underWay(tool), gate } }
      : which === ConformanceCase.beforeCommitment
        ? { gate: { at: "checkpoint", gate } }
        : which === ConformanceCase.duringSubmission
          ? { gate: { at: "afterSubmitted", gate } }
          : which === ConformanceCase.replyLostAfterCommit
            ? { loseReply: true }
            : {};
  how.fired = { replyLost: false, cancelRefused: false };
  const runnable = instrument(tool, how);
  const task = await o.agent.createTask({ title: `stop conformance: ${tool.name} — ${which}` });
  const item = await o.agent.scheduleWorkItem(task.id, {
    kind: tool.kind,
    toolName: tool.name,
    mechanism: tool.mechanism,
    commitsEffect: tool.commitsEffect,
    intentVersion: task.intentVersion,
    input: o.input as never,
    correlationId: `conformance-${which}-${Date.now().toString(36)}`,
  });
  const stop = () => o.agent.cancel(task.id, { reason: `stop conformance: ${which}` });

  let missed = false;
  let why = "the call ended before this point";
  if (which === ConformanceCase.beforeDispatch) {
    await stop();
  } else {
    const halt = new AbortController();
    let settled!: () => void;
    const ended = new Promise<void>((r) => (settled = r));
    const worker = runWorker({
      client: o.worker,
      tools: [runnable],
      workerId: `stop-conformance-${which}`,
      pollMs: 50,
      leaseMs: 6_000,
      heartbeatMs: 200,
      signal: halt.signal,
      onEvent: (e) => e.type === "settled" && e.workItemId === item.id && settled(),
    });
    if (which === ConformanceCase.afterSuccess || which === ConformanceCase.replyLostAfterCommit) {
      await race(ended, timeoutMs);
      await stop();
    } else {
      const reached = await race(Promise.race([gate.reached, ended.then(() => "ended" as const)]), timeoutMs);
      missed = reached !== undefined;
      await stop();
      gate.open();
      await race(ended, timeoutMs);
    }
    gate.open();
    halt.abort();
    await race(worker, timeoutMs);
  }

  const summary = await settledSummary(o.agent, task.id, timeoutMs);
  const call = summary.tool_calls.find((c) => c.tool_call_id === item.correlationId);
  const detail = await o.agent.getTask(task.id);
  const service = await serviceSays(o, refOf(detail, item.id));
  const reported = call?.outcome.kind ?? null;
  // The reply is "lost" only if the tool reported submitting: otherwise the case tested nothing.
  if (which === ConformanceCase.replyLostAfterCommit && !how.fired.replyLost) [missed, why] = [true, "the tool never reported submitting: no reply to lose"];
  return {
    case: which,
    title,
    stopline: call ? `${missed ? `(not reached: ${why}) ` : ""}${call.outcome.label}` : "not in the summary",
    reported,
    service,
    verdict: caseVerdict({ reported, service, commitsEffect: tool.commitsEffect, reached: !missed, gatedAtCheckpoint: how.gate?.at === "checkpoint" }),
  };
}

const race = <T>(p: Promise<T>, ms: number): Promise<T | "timeout"> => Promise.race([p, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms))]);

async function settledSummary(agent: StoplineClient, taskId: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const summary = await agent.getCancellation(taskId);
    if (summary.status !== "IN_PROGRESS" || Date.now() > end) return summary;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The reference your service knows the call by, from the server's record (operation id, or the idempotency key). */
function refOf(task: TaskDetail, workItemId: string): CallRef {
  const item = task.workItems.find((w) => w.id === workItemId)!;
  const effect = task.sideEffects.find((e) => e.workItemId === workItemId);
  return {
    workItemId: item.id,
    taskId: item.taskId,
    toolCallId: item.correlationId,
    idempotencyKey: item.idempotencyKey,
    operationId: item.operationId ?? effect?.operationId ?? null,
    providerRef: item.providerRef ?? effect?.providerRef ?? null,
    input: item.input,
  };
}

async function serviceSays(o: StopConformanceOptions, ref: CallRef): Promise<ServiceSays> {
  const answers: ServiceSays[] = [];
  if (o.tool.inspect)
    answers.push(
      await o.tool.inspect(ref).then(
        (x: { status: ServiceSays }) => x.status,
        () => "unknown" as const,
      ),
    );
  if (o.witness) answers.push(await o.witness(ref).catch(() => "unknown" as const));
  if (!answers.length) return "not_asked";
  for (const a of ["committed", "running", "unknown", "not_committed"] as const) if (answers.includes(a)) return a;
  return answers[0];
}
