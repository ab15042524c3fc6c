import type { ToolDefinition } from "../tools/contract";
import type { ClaimedWorkItem, CompleteInput, StoplineClient } from "./client";
/**
 * A worker process outside the app: serves local tools over the HTTP worker protocol
 * (claim → heartbeat → checkpoint / submitted → complete), with the same rules as the in-process runner
 * (lib/workers/run-work-item.ts).
 *
 * What it guarantees:
 * - the running code's `ctx.signal` fires when a heartbeat answers `cancelRequested` (the task's Stop was
 *   recorded, or a newer intent replaced the item's), or when the lease is lost (a heartbeat is refused
 *   with stale_lease, or none succeeded for a whole lease period);
 * - an item that never passed a checkpoint ends `completed`, `failed`, or — after a stop — `cancelled`,
 *   `partial` (the partial result was reported with `complete: true`) or `cancelled_incomplete`; except a
 *   `provider_cancel` / `rollback` tool that stopped without throwing StoppedError: it only stopped waiting, so
 *   it is left uncertain (below) for the server to cancel and inspect;
 * - after `ctx.submitted()` — or after a passed `ctx.checkpoint()` of a tool with `commitsEffect` — the action
 *   may have reached the service, so no failure and no stop is ever reported as failed or cancelled. It is
 *   handed over as UNCERTAIN (`POST /api/work-items/{id}/uncertain`; if that fails, the lease is left to
 *   expire and the server's lease recovery does the same). The server's cancellation engine reconciles it
 *   through the tool's `inspect()` by operation id / idempotency key — so the SERVER's registry must have the
 *   tool (with inspect) for that to end known; otherwise it stays uncertain until a person resolves it;
 * - `ctx.holdResource` / `ctx.releaseResource` / `ctx.reportPartial` are recorded on the server at once (they
 *   survive this process). Releasing is a claim: the server reports a resource released only after its
 *   engine verified it, which needs the tool's cleanup/verifyReleased in the SERVER's registry.
 *
 * What it does NOT do:
 * - stopping the worker (`signal`) does not abort running items: it stops claiming and waits for them to end.
 *   A killed worker loses nothing either: its leases expire and the server resumes from the ledger.
 */
/** How a run ended, as this worker saw it. */
export type RunOutcome = CompleteInput["outcome"] | "uncertain" | "lost_lease";
export type WorkerEvent = {
    type: "claimed";
    workItem: ClaimedWorkItem;
}
/** A heartbeat answered cancelRequested: the running code's AbortSignal fired. */
 | {
    type: "stop_requested";
    workItemId: string;
    toolName: string;
} | {
    type: "settled";
    workItemId: string;
    toolName: string;
    outcome: RunOutcome;
    detail?: string;
} | {
    type: "error";
    error: unknown;
    workItemId?: string;
};
export interface RunWorkerOptions {
    client: StoplineClient;
    /** The tools this worker serves; it claims only items of these tools. */
    tools: ToolDefinition<any, any>[];
    /** Recorded as the lease owner (and in the events' actor, with the token's name). */
    workerId: string;
    /** Work items run at once (default 1). */
    concurrency?: number;
    /** Lease length (default 30 s; the protocol's minimum is 1 s). */
    leaseMs?: number;
    /** Heartbeat interval — the latency of Stop reaching the running code (default leaseMs / 3, at most 2 s). */
    heartbeatMs?: number;
    /** Wait between claims when nothing is queued (default 1 s). */
    pollMs?: number;
    /** Stops claiming; running items are let finish. */
    signal?: AbortSignal;
    onEvent?: (event: WorkerEvent) => void;
}
/**
 * Runs until `signal` aborts (then waits for the running items) and resolves; rejects when the server refuses
 * this worker altogether (a token without the worker role, an invalid claim) — after the running items end.
 */
export declare function runWorker(options: RunWorkerOptions): Promise<void>;
/**
 * Throw it from a tool's run() when the tool KNOWS the call stopped for good (the service confirmed the
 * cancellation). Without it, a provider_cancel or rollback tool that stops after a Stop is only known to have
 * stopped waiting, and is left to the server to cancel and inspect. Recognised by name, so the StoppedError of
 * lib/tools/contract.ts works the same.
 */
export declare class StoppedError extends Error {
    readonly name = "StoppedError";
}
