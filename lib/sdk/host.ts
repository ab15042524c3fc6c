import type { CallRef, CompensationResult, EffectRef, InspectOutcome } from "../tools/contract";
import type { StoplineClient } from "./client";
import { ForbiddenError, UnauthorizedError, ValidationError } from "./errors";
import { abortableSleep } from "./retry";
import { jsonSafe } from "./stop-contract";

/** A tool whose contract runs in this process: what the engine may ask of it (issue 23). */
export interface HostedContract {
  name: string;
  risk: "low" | "high";
  mechanism: "abort_signal" | "provider_cancel" | "rollback" | "none";
  commitsEffect?: boolean;
  inspect?(ref: CallRef): Promise<InspectOutcome>;
  cancel?(ref: CallRef): Promise<void>;
  rollback?(ref: CallRef): Promise<void>;
  compensate?(effect: EffectRef, expectedVersion: string | null): Promise<CompensationResult>;
}

export interface HostToolsOptions {
  client: StoplineClient;
  /** This process's name as a host (the workerId of its leases). */
  hostId: string;
  tools: HostedContract[];
  /** The registration lives this long unless renewed (default 30 s); a host that is gone is forgotten after it. */
  leaseMs?: number;
  signal?: AbortSignal;
  onError?: (error: unknown) => void;
}

export interface ToolHostHandle {
  /** Adds (or replaces) tools; they are registered at once. */
  add(tools: HostedContract[]): Promise<void>;
  /** Stops answering: the registration expires. */
  stop(): Promise<void>;
}

const actionsOf = (t: HostedContract) => (["inspect", "cancel", "rollback", "compensate"] as const).filter((a) => typeof t[a] === "function");

/**
 * Makes this process the host of its tools' contracts (issue 23): it registers them with Stopline and answers the
 * engine's questions about their calls — inspect (reconciliation after the call ended uncertain), cancel / rollback
 * (a Stop, the withdrawal of a request still in flight), compensate (after a person approved a reversal) — by
 * running the tool's own functions here. `runWorker` and `createStopline` (the AI SDK wrapper) do this for their
 * tools; when this process is gone, its registration expires and the engine falls back to a person.
 */
export function hostTools(options: HostToolsOptions): ToolHostHandle {
  const { client, hostId } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const tools = new Map(options.tools.filter((t) => actionsOf(t).length).map((t) => [t.name, t]));
  const stopping = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopping.signal]) : stopping.signal;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      /* a listener's failure is not the host's */
    }
  };
  const register = async () => {
    if (!tools.size) return;
    await client.call("registerToolHost", {
      body: {
        hostId,
        leaseMs,
        tools: [...tools.values()].map((t) => ({
          name: t.name,
          capabilities: [...actionsOf(t)],
          risk: t.risk,
          mechanism: t.mechanism,
          commitsEffect: !!t.commitsEffect,
        })),
      },
      signal,
    });
  };

  const loop = (async () => {
    let registered = 0;
    while (!signal.aborted) {
      try {
        if (Date.now() - registered > leaseMs / 3) {
          await register();
          registered = Date.now();
        }
        if (!tools.size) {
          await abortableSleep(1_000, signal).catch(() => {});
          continue;
        }
        const asked = Date.now();
        const { requests } = await client.call("claimToolRequests", { body: { hostId, waitMs: Math.min(10_000, Math.floor(leaseMs / 3)), leaseMs }, signal });
        for (const request of requests) void answer(request);
        // A server that answers at once with nothing (it does not hold the poll): do not ask in a tight loop.
        if (!requests.length && Date.now() - asked < 500) await abortableSleep(1_000, signal).catch(() => {});
      } catch (error) {
        if (signal.aborted) return;
        report(error);
        if (error instanceof UnauthorizedError || error instanceof ForbiddenError || error instanceof ValidationError) return; // a token that may not host: nothing will change
        await abortableSleep(1_000, signal).catch(() => {});
      }
    }
  })();

  async function answer(request: { id: string; toolName: string; action: "inspect" | "cancel" | "rollback" | "compensate"; payload: unknown }) {
    const tool = tools.get(request.toolName);
    let body: { ok: true; value: unknown } | { ok: false; error: string };
    try {
      if (!tool) throw new Error(`this process does not host ${request.toolName} any more`);
      const payload = request.payload as { ref?: CallRef; effect?: EffectRef; expectedVersion?: string | null };
      let value: unknown;
      if (request.action === "compensate") value = await tool.compensate!(payload.effect!, payload.expectedVersion ?? null);
      else if (request.action === "inspect") value = await tool.inspect!(payload.ref!);
      else await tool[request.action]!(payload.ref!);
      body = { ok: true, value: jsonSafe(value) ?? null };
    } catch (error) {
      body = { ok: false, error: (error instanceof Error ? error.message : String(error)).slice(0, 4000) || "failed" };
    }
    await client.call("answerToolRequest", { params: { id: request.id }, body: { hostId, answer: body } }).catch(report);
  }

  return {
    async add(more) {
      for (const t of more) if (actionsOf(t).length) tools.set(t.name, t);
      await register().catch(report);
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
