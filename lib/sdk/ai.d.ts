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
 * What it does NOT do: run your `compensate` — compensation needs a person's approval and runs where Stopline's
 * engine runs (register the same contract in a worker process's registry for that). If this process dies
 * mid-call, the lease expires and the server marks the call uncertain (never re-run).
 *
 * AI SDK versions: written against what versions 6 and 7 share — `tool.execute(input, { toolCallId,
 * abortSignal })`, and a language model object whose `doGenerate(options)` / `doStream(options)` take
 * `options.abortSignal`. It imports nothing from `ai` at run time (types only), so it works with either; the
 * tests run `ai` 6 (version 7 needs Node 22).
 */
import type { CreateTaskInput, StoplineClient, Task } from "./client";
import type { CallRef, InspectOutcome, ToolContext } from "../tools/contract";
import type { Mechanism, RiskLevel, WorkItemKind } from "../ledger/states";
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
    /** Ask the authoritative service what really happened. Never re-submits. */
    inspect?(ref: CallRef): Promise<InspectOutcome>;
    /** Documented with the contract; runs where Stopline's engine runs (after a person approved), not here. */
    compensate?: unknown;
    /** How long the stop path asks inspect() before it leaves the call uncertain (default 5 s). */
    settleMs?: number;
}
/** The shape of an AI SDK tool that matters here (ai 6 and 7). */
export interface AiTool {
    execute?: (input: any, options: any) => any;
    [key: string]: unknown;
}
export type WrappedTools<T extends Record<string, {
    tool: AiTool;
    stop: StopContract;
}>> = {
    [K in keyof T]: T[K]["tool"];
};
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
/**
 * The ToolContext of a running call (for `submitted(operationId)`, `holdResource`, `reportPartial`,
 * `reportProgress` inside your `execute`): pass the AI SDK's execute options.
 */
export declare function stoplineContext(options: {
    toolCallId: string;
}): ToolContext | undefined;
export declare function createStopline(options: CreateStoplineOptions): {
    startTask: (input: CreateTaskInput) => Promise<StoplineTask>;
    attach: (task: Pick<Task, "id" | "intentVersion">) => StoplineTask;
    wrapTools: <T extends Record<string, {
        tool: AiTool;
        stop: StopContract;
    }>>(task: StoplineTask, defs: T) => WrappedTools<T>;
    wrapModel: <M extends {
        doGenerate: (options: any) => any;
        doStream: (options: any) => any;
        provider?: string;
        modelId?: string;
    }>(task: StoplineTask, model: M) => M;
    context: typeof stoplineContext;
    workerId: string;
};
export type Stopline = ReturnType<typeof createStopline>;
