/**
 * @module stopline/sdk/ai — Stopline for agents written with the Vercel AI SDK, in one line.
 *
 *   const stopline = createStopline({ client });                       // an admin token, or agent + worker clients
 *   const task = await stopline.startTask({ title: "order two chairs" });
 *   const result = streamText({
 *     model: stopline.wrapModel(task, model),                          // every generation is a model_request child
 *     tools: stopline.wrapTools(task, { createOrder: { tool: createOrder, stop: { mechanism: "provider_cancel", commitsEffect: true, cancel, inspect } } }),
 *     abortSignal: task.signal,                                        // fires when Stop is recorded (chat, console, API)
 *     stopWhen: stepCountIs(8),
 *   });
 *
 * Every tool call becomes a work item of the task, started inline (scheduled and leased to this process in one
 * step) and reported through the lease protocol. What happens on Stop:
 * - the task's ledger event stream (and every running call's heartbeat) reports the boundary; `task.signal`
 *   fires, which ends the AI SDK loop, and each running call's `abortSignal` fires;
 * - a call that may not have reached its service yet (no checkpoint passed, nothing submitted) is reported
 *   `cancelled` (or `partial` / `cancelled_incomplete` with what it reported through `stopline.context()`);
 * - a commitment (`commitsEffect: true`) passes a checkpoint right before `execute()` runs: after the Stop the
 *   checkpoint refuses it and nothing is sent;
 * - a call that may have reached its service is never reported as stopped on this process's word: the stop
 *   contract runs here — `cancel(ref)` (provider_cancel) or `rollback(ref)` — and then `inspect(ref)` is asked
 *   until it answers or `settleMs` passes: committed → `completed` (it happened, and the summary says so);
 *   not committed → `cancelled`; anything else → `uncertain` with the reason ("cancel sent, not confirmed").
 *
 * After a Stop, `repairToolResults(messages, { client, taskId })` (ai-repair.ts) gives the stopped turn's UI or model
 * messages a result for every call the Stop touched, from the ledger — so the next turn's model reads what happened.
 *
 * What it does NOT do: run your `compensate` — compensation needs a person's approval and runs where Stopline's
 * engine runs (register the same contract in a worker process's registry for that). If this process dies
 * mid-call, the lease expires and the server marks the call uncertain (never re-run).
 *
 * AI SDK versions: written against what versions 6 and 7 share — `tool.execute(input, { toolCallId,
 * abortSignal })`, and a language model object whose `doGenerate(options)` / `doStream(options)` take
 * `options.abortSignal`. It imports nothing from `ai` at run time (types only), so it works with either; the
 * tests run `ai` 6 (version 7 needs Node 22).
 */
import type { ClaimedWorkItem, CreateTaskInput, StoplineClient, Task } from "./client";
import { CancelledError, isStoplineError, StaleLeaseError } from "./errors";
import { isCheckpointRefusal } from "../errors";
import type { CallRef, CompensationResult, EffectRef, InspectOutcome, ToolContext } from "../tools/contract";
import { hostTools, type ToolHostHandle } from "./host";
import type { Mechanism, RiskLevel, WorkItemKind } from "../ledger/states";
import { abortableSleep } from "./retry";
import { endingOfRun } from "../tools/run-ending";
import { runningCall } from "../tools/tool-context";
import { jsonSafe, recordEffectOfSuccess, settleByContract } from "./stop-contract";

/** How a tool call is stopped, inspected and undone — the tool contract, declared next to the AI SDK tool. */
export interface StopContract {
  /** How Stopline stops it: `abort_signal` (the tool honours its abortSignal), `provider_cancel`, `rollback`, `none`. */
  mechanism: Mechanism;
  /** Does a call have an external effect (create an order, send an email)? It then passes a checkpoint first. */
  commitsEffect?: boolean;
  /** Default `remote_tool` (`external_action` when commitsEffect). */
  kind?: WorkItemKind;
  risk?: RiskLevel;
  /** Provider-side cancellation (mechanism provider_cancel), by the call's idempotency key / operation id. */
  cancel?(ref: CallRef): Promise<void>;
  /** An explicit undo with the original request id (mechanism rollback). */
  rollback?(ref: CallRef): Promise<void>;
  /** Ask the authoritative service what really happened. Never re-submits. With `resources`, it reports `holds`. */
  inspect?(ref: CallRef): Promise<InspectOutcome>;
  /**
   * Written ahead: every kind of resource a call may hold at its service ("lock", "temp_file" …). Recorded before
   * `execute` runs; `holdResource` (stoplineContext) names the handle when the answer arrives; when the answer is lost,
   * Stopline asks `inspect()` for `holds` (see lib/tools/contract.ts `resources`).
   */
  resources?: readonly string[];
  /**
   * Undoes a committed effect (an order → its cancellation), checking that the record still has `expectedVersion`.
   * Runs in this process when Stopline's engine asks — after a person approved the reversal — while this process
   * hosts its tools (createStopline's `host`, on by default).
   */
  compensate?(effect: EffectRef, expectedVersion: string | null): Promise<CompensationResult>;
  /** How long the stop path asks inspect() before it leaves the call uncertain (default 5 s). */
  settleMs?: number;
}

/** The shape of an AI SDK tool that matters here (ai 6 and 7). */
export interface AiTool {
  execute?: (input: any, options: any) => any;
  [key: string]: unknown;
}

export type WrappedTools<T extends Record<string, { tool: AiTool; stop: StopContract }>> = { [K in keyof T]: T[K]["tool"] };

export interface CreateStoplineOptions {
  /** Creates tasks and follows their events (an agent or admin token). */
  client: StoplineClient;
  /** Runs the calls through the lease protocol (a worker or admin token). Default: `client`. */
  worker?: StoplineClient;
  /** The lease owner recorded on every call (default `ai-agent-<random>`). */
  workerId?: string;
  leaseMs?: number;
  /** How often a running call heartbeats — the latency of a Stop reaching it when the event stream is down (default 1 s). */
  heartbeatMs?: number;
  /**
   * Host the wrapped tools' stop contracts (default true): Stopline's engine asks this process to inspect, cancel or
   * compensate their calls (reconciliation after this process left a call uncertain, an approved reversal) —
   * lib/sdk/host.ts. Call `stopline.close()` when the agent is done, so the process can exit.
   */
  host?: boolean;
}

/** A task as the agent's loop holds it. */
export interface StoplineTask {
  readonly id: string;
  readonly intentVersion: number;
  /** Fires when the task's Stop is recorded — pass it as the AI SDK's `abortSignal`. */
  readonly signal: AbortSignal;
  /** Stops following the task's events (call it when the loop is done). */
  close(): void;
}

interface TaskState extends StoplineTask {
  controller: AbortController;
  follow: AbortController;
}

const ctxByCall = new Map<string, ToolContext>();

/**
 * The ToolContext of a running call (for `submitted(operationId)`, `holdResource`, `reportPartial`,
 * `reportProgress` inside your `execute`): pass the AI SDK's execute options.
 */
export function stoplineContext(options: { toolCallId: string }): ToolContext | undefined {
  return ctxByCall.get(options.toolCallId);
}

export function createStopline(options: CreateStoplineOptions) {
  const client = options.client;
  const worker = options.worker ?? client;
  const workerId = options.workerId ?? `ai-agent-${Math.random().toString(36).slice(2, 10)}`;
  const leaseMs = options.leaseMs ?? 30_000;
  const heartbeatMs = options.heartbeatMs ?? 1_000;
  let host: ToolHostHandle | null = null;
  const hostContracts = (defs: Record<string, { stop: StopContract }>) => {
    if (options.host === false) return;
    const contracts = Object.entries(defs).map(([name, { stop }]) => ({
      name,
      risk: stop.risk ?? (stop.commitsEffect ? "high" : "low"),
      mechanism: stop.mechanism,
      commitsEffect: !!stop.commitsEffect,
      ...(stop.inspect ? { inspect: stop.inspect } : {}),
      ...(stop.cancel ? { cancel: stop.cancel } : {}),
      ...(stop.rollback ? { rollback: stop.rollback } : {}),
      ...(stop.compensate ? { compensate: stop.compensate } : {}),
    }));
    if (!host) host = hostTools({ client: worker, hostId: workerId, tools: contracts });
    else void host.add(contracts);
  };

  function attach(task: Pick<Task, "id" | "intentVersion">): StoplineTask {
    const controller = new AbortController();
    const follow = new AbortController();
    const state: TaskState = {
      id: task.id,
      intentVersion: task.intentVersion,
      signal: controller.signal,
      controller,
      follow,
      close: () => follow.abort(),
    };
    // The boundary, as soon as it is recorded: the task's own event stream (resumes by itself after a drop).
    void (async () => {
      try {
        for await (const event of client.events({ taskId: task.id, signal: follow.signal })) {
          if (event.type === "task.cancel_requested") {
            controller.abort(
              new CancelledError(`the task was stopped${event.reason ? `: ${event.reason}` : ""}`, {
                status: null,
                code: "cancel_requested",
                details: { taskId: task.id },
              }),
            );
            follow.abort();
            return;
          }
        }
      } catch {
        /* the heartbeats of running calls still carry the Stop */
      }
    })();
    return state;
  }

  async function startTask(input: CreateTaskInput): Promise<StoplineTask> {
    return attach(await client.createTask(input));
  }

  /** Runs one call as an inline work item; see the module comment for the stop rules. */
  async function runCall<O>(
    task: StoplineTask,
    call: {
      kind: WorkItemKind;
      toolName: string;
      mechanism: Mechanism;
      commitsEffect: boolean;
      correlationId?: string;
      input: unknown;
      contract?: StopContract;
      signal?: AbortSignal;
      record?: (result: O) => unknown;
      resources?: readonly string[];
    },
    body: (ctx: ToolContext) => Promise<O>,
  ): Promise<O> {
    const state = task as TaskState;
    if (state.signal.aborted) throw state.signal.reason;
    let item: ClaimedWorkItem;
    try {
      item = await worker.startWorkItem(task.id, {
        kind: call.kind,
        toolName: call.toolName,
        mechanism: call.mechanism,
        commitsEffect: call.commitsEffect,
        intentVersion: task.intentVersion,
        ...(call.correlationId ? { correlationId: call.correlationId } : {}),
        input: jsonSafe(call.input),
        workerId,
        leaseMs,
      });
    } catch (error) {
      if (error instanceof CancelledError) state.controller.abort(error);
      throw error;
    }
    const lease = { leaseToken: item.leaseToken };
    const controller = new AbortController();
    const stop = (reason: unknown) => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    const onTask = () => stop(state.signal.reason);
    state.signal.addEventListener("abort", onTask, { once: true });
    if (state.signal.aborted) onTask();
    const onCaller = () => stop(call.signal!.reason);
    call.signal?.addEventListener("abort", onCaller, { once: true });

    const beats = new AbortController();
    const beating = (async () => {
      while (!beats.signal.aborted) {
        try {
          await abortableSleep(heartbeatMs, beats.signal);
          const hb = await worker.heartbeat(item.id, { ...lease, leaseMs }, { signal: beats.signal });
          if (hb.cancelRequested) {
            const reason = new CancelledError("the task's cancellation was recorded (heartbeat)", {
              status: null,
              code: "cancel_requested",
              details: { taskId: task.id },
            });
            state.controller.abort(reason);
            stop(reason);
          }
        } catch (error) {
          if (beats.signal.aborted) return;
          if (error instanceof StaleLeaseError) return stop(error);
        }
      }
    })();

    // The running code's context (lib/tools/tool-context.ts, the same for every runner): each method calls the worker
    // API before it returns; the facts (submitted, checkpoint, partial) are what the run-ending rule reads.
    const params = { id: item.id };
    const running = runningCall(
      { workItemId: item.id, taskId: item.taskId, toolCallId: item.correlationId, idempotencyKey: item.idempotencyKey },
      controller.signal,
      {
        checkpoint: () => worker.checkpoint(item.id, lease),
        submitted: (operationId, details) => worker.submitted(item.id, { ...lease, operationId, ...details }),
        holdResource: (type, handle) => worker.call("holdResource", { params, body: { ...lease, type, handle } }),
        releaseResource: (type, handle) => worker.call("releaseResource", { params, body: { ...lease, type, handle } }),
        reportPartial: (result, complete) => worker.call("reportPartial", { params, body: { ...lease, result, complete } }),
        reportProgress: (report) => worker.call("reportProgress", { params, body: { ...lease, ...report } }).catch(() => {}),
      },
    );
    const { ctx, facts } = running;
    const submitted = () => facts.submitted;
    const key = call.correlationId;
    if (key) ctxByCall.set(key, ctx);
    const ref = (): CallRef => ({
      workItemId: item.id,
      taskId: item.taskId,
      toolCallId: item.correlationId,
      idempotencyKey: item.idempotencyKey,
      operationId: submitted()?.operationId ?? null,
      providerRef: submitted()?.providerRef ?? null,
      input: item.input,
    });
    const complete = async (outcome: "completed" | "failed" | "cancelled" | "partial" | "cancelled_incomplete", extra: Record<string, unknown> = {}) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await worker.complete(item.id, { ...lease, outcome, ...extra });
        } catch (error) {
          // The engine moved the item at the same moment (running → cancelling after the Stop): the lease is still
          // ours, so the report is made again against the new state.
          if (isStoplineError(error) && error.code === "conflict" && attempt < 5) {
            await new Promise((r) => setTimeout(r, 50 * attempt));
            continue;
          }
          // The lease moved on, or the item was settled by the engine: the ledger's record stands.
          if (isStoplineError(error) && ["stale_lease", "illegal_transition", "not_found", "conflict"].includes(String(error.code))) return;
          throw error;
        }
      }
    };

    try {
      // Written ahead (docs/ARCHITECTURE.md, invariant 4): what the call may hold is recorded before its request leaves.
      const resources = call.resources ?? call.contract?.resources;
      if (resources?.length) await worker.call("intendResources", { params: { id: item.id }, body: { ...lease, types: [...resources] } });
      const result = await body(ctx);
      // The answer named everything the call holds: kinds written ahead and never named hold nothing.
      if (resources?.length) await worker.call("settleResourceIntents", { params: { id: item.id }, body: lease }).catch(() => {});
      // A commitment that never said submitted(): its service says what it did, and that is recorded as the effect.
      const effect =
        submitted() === null && call.commitsEffect
          ? await recordEffectOfSuccess(call.contract, ref(), { recordEffect: (e) => worker.submitted(item.id, { ...lease, ...e }) })
          : {};
      await complete("completed", { result: jsonSafe(call.record ? call.record(result) : result) ?? null, ...effectIds(submitted()), ...effect });
      return result;
    } catch (error) {
      const stopped = controller.signal.aborted;
      const message = error instanceof Error ? error.message : String(error);
      const ending = endingOfRun({ mechanism: call.mechanism, commitsEffect: !!call.commitsEffect, canInspect: !!call.contract?.inspect }, facts, {
        error,
        stopped,
        // The server's checkpoint said no (its own cancel_requested, not this call's abort reason): nothing was sent.
        refusedAtCheckpoint: isCheckpointRefusal(error, controller.signal.reason),
      });
      if (ending.outcome !== "uncertain") {
        if (ending.outcome === "failed") await complete("failed", { error: ending.error });
        else if (ending.outcome === "cancelled") await complete("cancelled");
        else await complete(ending.outcome, { partialResult: jsonSafe(ending.partialResult) ?? null, partialComplete: ending.outcome === "partial" });
        throw stopped ? controller.signal.reason : error;
      }
      // The action may have reached its service: the contract decides, never this process's guess.
      await settleByContract(
        call.contract,
        ref(),
        { stopped, message, submitted: facts.submitted !== null },
        {
          complete,
          uncertain: (reason) => worker.call("markUncertain", { params: { id: item.id }, body: { ...lease, reason } }),
          recordEffect: (effect) => worker.submitted(item.id, { ...lease, ...effect }),
        },
      );
      throw stopped ? controller.signal.reason : error;
    } finally {
      running.dispose();
      beats.abort();
      await beating;
      state.signal.removeEventListener("abort", onTask);
      call.signal?.removeEventListener("abort", onCaller);
      if (key) ctxByCall.delete(key);
    }
  }

  function wrapTools<T extends Record<string, { tool: AiTool; stop: StopContract }>>(task: StoplineTask, defs: T): WrappedTools<T> {
    const out: Record<string, AiTool> = {};
    for (const [name, { tool, stop }] of Object.entries(defs)) {
      if (stop.mechanism === "provider_cancel" && !stop.cancel)
        throw new TypeError(`wrapTools: ${name} declares mechanism "provider_cancel" but has no cancel(ref)`);
      if (stop.mechanism === "rollback" && !stop.rollback) throw new TypeError(`wrapTools: ${name} declares mechanism "rollback" but has no rollback(ref)`);
      if (stop.resources?.length && !stop.inspect)
        throw new TypeError(`wrapTools: ${name} declares resources but has no inspect(ref) to report what a call whose answer was lost holds`);
      if (stop.commitsEffect && !stop.inspect && stop.mechanism !== "none") {
        throw new TypeError(`wrapTools: ${name} commits effects but has no inspect(ref) to ask its service what happened (or declare mechanism "none")`);
      }
      const execute = tool.execute;
      if (!execute) {
        out[name] = tool; // a client-side tool: nothing runs here
        continue;
      }
      out[name] = {
        ...tool,
        execute: (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) =>
          runCall(
            task,
            {
              kind: stop.kind ?? (stop.commitsEffect ? "external_action" : "remote_tool"),
              toolName: name,
              mechanism: stop.mechanism,
              commitsEffect: !!stop.commitsEffect,
              correlationId: options.toolCallId,
              input,
              contract: stop,
              signal: options.abortSignal,
            },
            async (ctx) => {
              if (stop.commitsEffect) await ctx.checkpoint(); // the versioned check right before the commitment
              return execute(input, { ...options, abortSignal: ctx.signal });
            },
          ),
      };
    }
    hostContracts(defs);
    return out as WrappedTools<T>;
  }

  /**
   * Each generation of `model` becomes a `model_request` child (mechanism abort_signal): Stop aborts the
   * provider call itself; a half-written answer is kept as an incomplete partial result, never as an answer.
   */
  function wrapModel<M extends { doGenerate: (options: any) => any; doStream: (options: any) => any; provider?: string; modelId?: string }>(
    task: StoplineTask,
    model: M,
  ): M {
    const toolName = `model:${model.provider ?? "model"}:${model.modelId ?? "unknown"}`;
    const describe = (options: { prompt?: unknown[] }) => ({ messages: Array.isArray(options.prompt) ? options.prompt.length : 0 });
    const wrapped = Object.create(model) as M;
    wrapped.doGenerate = (options: { abortSignal?: AbortSignal; prompt?: unknown[] }) =>
      runCall(
        task,
        {
          kind: "model_request",
          toolName,
          mechanism: "abort_signal",
          commitsEffect: false,
          input: describe(options),
          signal: options.abortSignal,
          record: (r: any) => ({ text: textOf(r?.content), finishReason: r?.finishReason ?? null }),
        },
        (ctx) => Promise.resolve(model.doGenerate({ ...options, abortSignal: ctx.signal })),
      );
    wrapped.doStream = (options: { abortSignal?: AbortSignal; prompt?: unknown[] }) =>
      new Promise((resolve, reject) => {
        let handedOver = false;
        runCall(
          task,
          { kind: "model_request", toolName, mechanism: "abort_signal", commitsEffect: false, input: describe(options), signal: options.abortSignal },
          async (ctx) => {
            const response = await model.doStream({ ...options, abortSignal: ctx.signal });
            let text = "";
            let settle!: { resolve: () => void; reject: (e: unknown) => void };
            const ended = new Promise<void>((res, rej) => (settle = { resolve: res, reject: rej }));
            const onAbort = () => {
              void ctx
                .reportPartial({ text }, { complete: false })
                .catch(() => {})
                .finally(() => settle.reject(ctx.signal.reason));
            };
            ctx.signal.addEventListener("abort", onAbort, { once: true });
            const stream = (response.stream as ReadableStream<any>).pipeThrough(
              new TransformStream({
                transform(part, c) {
                  if (part?.type === "text-delta") text += part.delta ?? part.textDelta ?? "";
                  c.enqueue(part);
                },
                flush() {
                  settle.resolve();
                },
              }),
            );
            handedOver = true;
            resolve({ ...response, stream });
            try {
              await ended;
            } finally {
              ctx.signal.removeEventListener("abort", onAbort);
            }
            return { text };
          },
        ).catch((error) => {
          if (!handedOver) reject(error);
        });
      });
    return wrapped;
  }

  /** Stops hosting the tools' contracts (the process may exit); tasks already followed stop being followed by their close(). */
  async function close() {
    await host?.stop();
    host = null;
  }

  return { startTask, attach, wrapTools, wrapModel, context: stoplineContext, workerId, close };
}

export type Stopline = ReturnType<typeof createStopline>;

function effectIds(submitted: { externalRecordId?: string; externalVersion?: string } | null) {
  return submitted ? { externalRecordId: submitted.externalRecordId, externalVersion: submitted.externalVersion } : {};
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => (c && typeof c === "object" && (c as { type?: string }).type === "text" ? String((c as { text?: string }).text ?? "") : ""))
    .join("");
}

// Truthful tool results for the messages of a stopped turn (issue 25): the next turn's model reads what the ledger knows.
export { repairToolResults, repairWithTask, NO_RECORD, type RepairOptions, type UiMessageLike, type ModelMessageLike } from "./ai-repair";
