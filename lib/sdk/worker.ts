import type { ToolDefinition } from "../tools/contract";
import { isCheckpointRefusal, StoppedError } from "../errors";

/** Thrown by a tool when the service confirmed the call stopped for good (the one definition: lib/errors.ts). */
export { StoppedError };
import { endingOfRun, isRemoteMechanism } from "../tools/run-ending";
import { runningCall } from "../tools/tool-context";
import { hostTools } from "./host";
import { settleByContract } from "./stop-contract";
import type { ClaimedWorkItem, CompleteInput, StoplineClient } from "./client";
import { CancelledError, ConflictError, ForbiddenError, NotFoundError, StaleLeaseError, UnauthorizedError, ValidationError } from "./errors";
import { abortableSleep } from "./retry";

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

export type WorkerEvent =
  | { type: "claimed"; workItem: ClaimedWorkItem }
  /** A heartbeat answered cancelRequested: the running code's AbortSignal fired. */
  | { type: "stop_requested"; workItemId: string; toolName: string }
  | { type: "settled"; workItemId: string; toolName: string; outcome: RunOutcome; detail?: string }
  | { type: "error"; error: unknown; workItemId?: string };

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
  /**
   * Host the tools' contracts (default true): while the worker runs, Stopline's engine asks it to inspect, cancel,
   * roll back or compensate calls of its tools (lib/sdk/host.ts), so the server needs no copy of them.
   */
  host?: boolean;
}

/**
 * Runs until `signal` aborts (then waits for the running items) and resolves; rejects when the server refuses
 * this worker altogether (a token without the worker role, an invalid claim) — after the running items end.
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const leaseMs = options.leaseMs ?? 30_000;
  const o = {
    concurrency: 1,
    pollMs: 1_000,
    heartbeatMs: Math.max(100, Math.min(Math.floor(leaseMs / 3), 2_000)),
    ...stripUndefined(options),
    leaseMs,
  };
  if (!o.tools.length) throw new TypeError("runWorker: at least one tool is required");
  const byName = new Map<string, ToolDefinition<any, any>>();
  for (const tool of o.tools) {
    if (byName.has(tool.name)) throw new TypeError(`runWorker: tool "${tool.name}" is listed twice`);
    byName.set(tool.name, tool);
  }
  if (!Number.isInteger(o.concurrency) || o.concurrency < 1) throw new TypeError("runWorker: concurrency must be a positive integer");
  if (leaseMs < 1_000) throw new TypeError("runWorker: leaseMs must be at least 1000 (the protocol's minimum)");
  if (o.heartbeatMs >= leaseMs) throw new TypeError("runWorker: heartbeatMs must be shorter than leaseMs");

  const emit = (event: WorkerEvent) => {
    try {
      o.onEvent?.(event);
    } catch {
      /* a listener's error must not stop the worker */
    }
  };
  // The engine's questions about these tools' calls (reconciliation, cancel, compensation) are answered here.
  const host =
    o.host === false
      ? null
      : hostTools({ client: o.client, hostId: o.workerId, tools: o.tools, signal: o.signal, onError: (error) => emit({ type: "error", error }) });
  const running = new Map<string, Promise<void>>();
  let slotFreed: () => void = () => {};
  let fatal: unknown = null;
  const signal = o.signal;

  while (!signal?.aborted) {
    if (running.size >= o.concurrency) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener("abort", done);
          resolve();
        };
        slotFreed = done;
        signal?.addEventListener("abort", done, { once: true });
      });
      continue;
    }
    let item: ClaimedWorkItem | null;
    let claimSentAt = Date.now();
    try {
      // No signal here: a claim aborted mid-flight could lease an item to nobody (it would wait for its lease
      // to expire). A claimed item is run even if the worker is being stopped meanwhile.
      claimSentAt = Date.now();
      item = await o.client.claim({ workerId: o.workerId, toolNames: [...byName.keys()], leaseMs });
    } catch (error) {
      if (error instanceof UnauthorizedError || error instanceof ForbiddenError || error instanceof ValidationError) {
        fatal = error;
        break;
      }
      emit({ type: "error", error });
      item = null;
    }
    if (!item) {
      await abortableSleep(o.pollMs, signal).catch(() => {});
      continue;
    }
    emit({ type: "claimed", workItem: item });
    const claimed = item;
    const run = runClaimed(claimed, claimSentAt, byName.get(claimed.toolName), o, emit)
      .then((settled) => emit({ type: "settled", workItemId: claimed.id, toolName: claimed.toolName, ...settled }))
      .catch((error) => emit({ type: "error", error, workItemId: claimed.id }))
      .finally(() => {
        running.delete(claimed.id);
        slotFreed();
      });
    running.set(claimed.id, run);
  }

  await Promise.allSettled([...running.values()]);
  await host?.stop();
  if (fatal) throw fatal;
}

interface RunSettings {
  client: StoplineClient;
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
}

/** Runs one claimed item to its end; never throws for the tool's own failures. */
async function runClaimed(
  item: ClaimedWorkItem,
  claimSentAt: number,
  tool: ToolDefinition<any, any> | undefined,
  o: RunSettings,
  emit: (event: WorkerEvent) => void,
): Promise<{ outcome: RunOutcome; detail?: string }> {
  const { client } = o;
  const lease = { leaseToken: item.leaseToken };
  const controller = new AbortController();
  let lostLease = false;

  const finish = async (outcome: CompleteInput["outcome"], extra: Omit<CompleteInput, "leaseToken" | "outcome"> = {}) => {
    try {
      await client.complete(item.id, { ...lease, outcome, ...extra });
      return { outcome, detail: extra.error };
    } catch (error) {
      // An earlier attempt landed and only its answer was lost: the retry finds the item in our outcome.
      if (error instanceof StaleLeaseError && error.attempts > 1 && error.details.currentState === outcome) return { outcome };
      // The ledger refused (the lease expired and was recovered, or the engine settled the item): its record stands.
      if (error instanceof StaleLeaseError || error instanceof ConflictError || error instanceof NotFoundError) {
        return { outcome: "lost_lease" as const, detail: error.message };
      }
      // Unreachable after the retries: the lease expires and lease recovery decides from the ledger's record.
      emit({ type: "error", error, workItemId: item.id });
      return { outcome: "lost_lease" as const, detail: `the completion could not be reported: ${(error as Error).message}` };
    }
  };

  if (!tool) return finish("failed", { error: `this worker has no tool "${item.toolName}"` });

  // ---- heartbeats: the lease, and how Stop reaches the running code --------------------------------------
  const heartbeats = new AbortController();
  let leaseValidUntil = claimSentAt + o.leaseMs; // by our own clock, from when the claim or the last successful heartbeat was sent
  const loseLease = (why: string) => {
    lostLease = true;
    if (!controller.signal.aborted) controller.abort(new StaleLeaseError(why, { status: null, code: "stale_lease", details: { workItemId: item.id } }));
  };
  /** One heartbeat: renews the lease and learns whether to stop. False once the beating is over (stopped, or the lease lost). */
  const beatOnce = async (): Promise<boolean> => {
    const sentAt = Date.now();
    // A heartbeat that is still retrying when the lease runs out by our clock is given up: the lease is lost.
    const leaseRunsOut = AbortSignal.timeout(Math.max(1, leaseValidUntil - sentAt));
    try {
      const hb = await client.heartbeat(item.id, { ...lease, leaseMs: o.leaseMs }, { signal: AbortSignal.any([heartbeats.signal, leaseRunsOut]) });
      leaseValidUntil = sentAt + o.leaseMs;
      if (hb.cancelRequested && !controller.signal.aborted) {
        controller.abort(
          new CancelledError("the task's cancellation was requested (reported by the heartbeat)", {
            status: null,
            code: "cancel_requested",
            details: { workItemId: item.id },
          }),
        );
        emit({ type: "stop_requested", workItemId: item.id, toolName: item.toolName });
      }
    } catch (error) {
      if (heartbeats.signal.aborted) return false;
      if (error instanceof StaleLeaseError || error instanceof NotFoundError) {
        loseLease("this worker's lease is no longer current");
        return false;
      }
      if (leaseRunsOut.aborted || Date.now() > leaseValidUntil) {
        loseLease(`no heartbeat succeeded for a whole lease (${o.leaseMs} ms): the server may have given the item to another worker`);
        return false;
      }
      emit({ type: "error", error, workItemId: item.id });
    }
    return true;
  };
  // A run starts only on a lease this worker still holds: one slowed past half its lease (a paused process, a blocked
  // event loop) may have had the item recovered, or its task stopped, meanwhile — ask before anything leaves.
  const confirmed = Date.now() >= claimSentAt + o.leaseMs / 2 ? beatOnce() : Promise.resolve(true);
  const beat = (async () => {
    if (!(await confirmed)) return;
    while (!heartbeats.signal.aborted) {
      try {
        await abortableSleep(o.heartbeatMs, heartbeats.signal);
      } catch {
        return;
      }
      if (!(await beatOnce())) return;
    }
  })();
  const stopHeartbeats = async () => {
    heartbeats.abort();
    await beat;
  };

  // The running code's context (lib/tools/tool-context.ts, shared with the in-process runner): each method calls the
  // worker API before it returns; progress is informational — a lost report is an event, never a stop.
  const params = { id: item.id };
  const leaseToken = lease.leaseToken;
  const running = runningCall(
    { workItemId: item.id, taskId: item.taskId, toolCallId: item.correlationId, idempotencyKey: item.idempotencyKey, traceparent: item.traceparent },
    controller.signal,
    {
      checkpoint: () => client.checkpoint(item.id, lease),
      submitted: (operationId, details) => client.submitted(item.id, { ...lease, operationId, ...details }),
      holdResource: (type, handle) => client.call("holdResource", { params, body: { leaseToken, type, handle } }),
      releaseResource: (type, handle) => client.call("releaseResource", { params, body: { leaseToken, type, handle } }),
      reportPartial: (result, complete) => client.call("reportPartial", { params, body: { leaseToken, result, complete } }),
      reportProgress: (report) =>
        client
          .call("reportProgress", { params, body: { leaseToken, ...report } })
          .catch((error: unknown) => emit({ type: "error", error, workItemId: item.id })),
    },
  );
  const { ctx, facts } = running;

  try {
    const input = tool.input ? tool.input.parse(item.input ?? undefined) : item.input;
    await confirmed;
    // Stopped before its request left (the lease moved on, or the Stop came while it was checked): nothing was sent.
    if (controller.signal.aborted) {
      await stopHeartbeats();
      return lostLease ? { outcome: "lost_lease" as const, detail: (controller.signal.reason as Error)?.message } : await finish("cancelled");
    }
    // Written ahead (docs/ARCHITECTURE.md, invariant 4): what the call may hold is on the server before its request leaves.
    if (tool.resources?.length)
      await client.call("intendResources", { params: { id: item.id }, body: { leaseToken: lease.leaseToken, types: [...tool.resources] } });
    const result = await tool.run(input, ctx);
    // The answer named everything the call holds: kinds written ahead and never named hold nothing.
    if (tool.resources?.length)
      await client
        .call("settleResourceIntents", { params: { id: item.id }, body: { leaseToken: lease.leaseToken } })
        .catch((error: unknown) => emit({ type: "error", error, workItemId: item.id }));
    await stopHeartbeats();
    return await finish("completed", { result: result ?? null });
  } catch (error) {
    await stopHeartbeats();
    if (lostLease) return { outcome: "lost_lease", detail: (controller.signal.reason as Error)?.message };
    const message = error instanceof Error ? error.message : String(error);
    const stopped = controller.signal.aborted;
    const confirmedStop = error instanceof StoppedError;
    const ending = endingOfRun({ mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, canInspect: !!tool.inspect }, facts, {
      error,
      stopped,
      // The server's checkpoint said no (its own cancel_requested, not this run's abort reason): nothing was sent.
      refusedAtCheckpoint: isCheckpointRefusal(error, controller.signal.reason),
    });
    if (ending.outcome === "uncertain" && stopped && isRemoteMechanism(tool.mechanism) && !confirmedStop && (tool.cancel || tool.rollback || tool.inspect)) {
      // Stopped, and this process holds the tool's contract: it cancels (or rolls back) and asks the service what
      // happened, as the AI SDK wrapper does; the server's engine waits for this report (it does not run the
      // contract a second time). Whether or not the call said submitted(): a request in flight is withdrawn first.
      let ended: { outcome: RunOutcome; detail?: string } = { outcome: "uncertain" };
      await settleByContract(
        tool,
        refOf(item),
        { stopped: true, message, submitted: facts.submitted !== null },
        {
          complete: async (outcome, extra = {}) => (ended = await finish(outcome, extra as Omit<CompleteInput, "leaseToken" | "outcome">)),
          uncertain: async (reason) => {
            await leaveUncertain(client, item.id, lease.leaseToken, reason);
            ended = { outcome: "uncertain", detail: reason };
          },
          recordEffect: (effect) => client.submitted(item.id, { ...lease, ...effect }),
        },
      );
      return ended;
    }
    switch (ending.outcome) {
      case "uncertain":
        await leaveUncertain(client, item.id, lease.leaseToken, ending.reason);
        return { outcome: "uncertain", detail: `${ending.reason}; left for the server's lease recovery and reconciliation` };
      case "failed":
        return finish("failed", { error: ending.error });
      case "cancelled":
        return finish("cancelled");
      default:
        return finish(ending.outcome, { partialResult: ending.partialResult ?? null, partialComplete: ending.outcome === "partial" });
    }
  } finally {
    heartbeats.abort();
    running.dispose();
  }
}

/**
 * Hands the item to reconciliation. If the route refuses or the server cannot be reached, one last heartbeat
 * shortens the lease to the protocol's minimum and no more follow: lease recovery then marks it uncertain.
 */
async function leaveUncertain(
  client: StoplineClient,
  workItemId: string,
  leaseToken: string,
  reason = "the worker does not know how the accepted action ended",
) {
  try {
    await client.call("markUncertain", { params: { id: workItemId }, body: { leaseToken, reason } });
  } catch {
    // The route refused or the server is unreachable: let the lease run out instead (recovery marks it uncertain).
    await client.heartbeat(workItemId, { leaseToken, leaseMs: 1_000 }).catch(() => {});
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The call as its tool's contract refers to it. */
function refOf(item: ClaimedWorkItem) {
  return {
    workItemId: item.id,
    taskId: item.taskId,
    toolCallId: item.correlationId,
    idempotencyKey: item.idempotencyKey,
    operationId: item.operationId ?? null,
    providerRef: item.providerRef ?? null,
    input: item.input,
  };
}
