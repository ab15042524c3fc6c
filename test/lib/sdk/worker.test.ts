import { describe, expect, it } from "vitest";
import type { ToolContext, ToolDefinition } from "../../../lib/tools/contract";
import { StoplineClient } from "../../../lib/sdk/client";
import { aWorkItem, apiError, json } from "../../support/sdk/fixtures";
import { StoppedError as ContractStoppedError } from "../../../lib/tools/contract";
import { runWorker, StoppedError, type WorkerEvent } from "../../../lib/sdk/worker";

/**
 * runWorker against a fake worker protocol (a fetch that plays the server): which calls it makes and what it
 * reports, per the rules of lib/workers/run-work-item.ts. The real server is in sdk.int.test.ts.
 */

interface FakeServer {
  calls: { route: string; body: Record<string, any> }[];
  /** Set to make heartbeats answer cancelRequested: true. */
  stop(): void;
  /** Answer checkpoints with this error response instead of passing. */
  refuseCheckpoint?: () => Response;
  /** Answer heartbeats with this instead (a refusal, or a promise that never settles: the network is down). */
  heartbeat?: (signal: AbortSignal | undefined) => Response | Promise<Response>;
  /** Delay the claim's answer by this long (a slow network, a paused process). */
  claimDelayMs?: number;
}

function fakeServer(tool: string, commitsEffect = false): { server: FakeServer; client: StoplineClient } {
  let claimed = false;
  let stopRequested = false;
  const server: FakeServer = { calls: [], stop: () => void (stopRequested = true) };
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = new URL(String(input)).pathname;
    const body = typeof init.body === "string" ? JSON.parse(init.body) : {};
    const route = path.replace(/\/api\/work-items\/[^/]+\//, "");
    server.calls.push({ route, body });
    switch (route) {
      case "/api/workers/claim":
        if (claimed) return json(200, { workItem: null });
        claimed = true;
        if (server.claimDelayMs) await sleep(server.claimDelayMs);
        return json(200, { workItem: { ...aWorkItem({ status: "running", toolName: tool, commitsEffect, input: { n: 3 } }), leaseToken: "lease-1" } });
      case "heartbeat":
        if (server.heartbeat) return server.heartbeat(init.signal ?? undefined);
        return json(200, {
          status: "running",
          cancelRequested: stopRequested,
          intentVersion: stopRequested ? 2 : 1,
          leaseExpiresAt: "2026-12-01T10:00:30.000Z",
        });
      case "checkpoint":
        return server.refuseCheckpoint?.() ?? json(200, { passed: true, intentVersion: 1, proposalVersion: 0 });
      case "submitted":
        return json(200, {
          workItem: aWorkItem({ status: "submitted", operationId: body.operationId }),
          sideEffect: {
            id: "se_1",
            taskId: "task_1",
            workItemId: "wi_1",
            operationId: body.operationId,
            providerRef: null,
            externalRecordId: null,
            externalVersion: null,
            reversible: false,
            description: null,
            outcome: "unknown",
            createdAt: "2026-12-01T10:00:00.000Z",
            updatedAt: "2026-12-01T10:00:00.000Z",
          },
        });
      case "complete":
        return json(200, aWorkItem({ status: body.outcome }));
      case "partial":
        return json(200, { ok: true });
      case "uncertain":
        return json(200, aWorkItem({ status: "uncertain" }));
      case "/api/workers/hosts":
        return json(200, { hostId: body.hostId, tools: body.tools.map((t: { name: string }) => t.name), expiresAt: "2026-12-01T10:00:30.000Z" });
      case "/api/workers/requests":
        return json(200, { requests: [] });
      case "resources":
      case "resources/release":
        return json(route === "resources" ? 201 : 200, {
          id: "res_1",
          taskId: "task_1",
          workItemId: "wi_1",
          type: body.type,
          handle: body.handle,
          state: route === "resources" ? "held" : "release_requested",
          attempts: 0,
          verifiedAt: null,
          createdAt: "2026-12-01T10:00:00.000Z",
          updatedAt: "2026-12-01T10:00:00.000Z",
        });
      default:
        return new Response("no such route", { status: 404 });
    }
  };
  const client = new StoplineClient({ baseUrl: "http://fake", token: "t", fetch: fetch as typeof globalThis.fetch, retry: { retries: 0 } });
  return { server, client };
}

const tool = (name: string, run: (input: any, ctx: ToolContext) => Promise<unknown>, over: Partial<ToolDefinition> = {}): ToolDefinition<any, any> => ({
  name,
  kind: "local_worker",
  risk: "low",
  commitsEffect: false,
  mechanism: "abort_signal",
  run,
  ...over,
});

/** Runs the worker until the one claimed item settled, then stops it. */
async function runOnce(client: StoplineClient, tools: ToolDefinition<any, any>[], during?: (events: WorkerEvent[]) => void) {
  const events: WorkerEvent[] = [];
  const stop = new AbortController();
  const settled = new Promise<Extract<WorkerEvent, { type: "settled" }>>((resolve) => {
    const done = runWorker({
      client,
      tools,
      workerId: "w1",
      leaseMs: 1_000,
      heartbeatMs: 20,
      pollMs: 10,
      signal: stop.signal,
      onEvent: (e) => {
        events.push(e);
        during?.(events);
        if (e.type === "settled") resolve(e);
      },
    });
    void done;
  });
  const result = await settled;
  stop.abort();
  return { result, events };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const untilAborted = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));

describe("runWorker", () => {
  it("claims only its tools, runs the item and completes it with the result", async () => {
    const { server, client } = fakeServer("t.echo");
    const { result } = await runOnce(client, [tool("t.echo", async (input) => ({ echoed: input }))]);
    expect(result.outcome).toBe("completed");
    expect(server.calls[0]).toEqual({ route: "/api/workers/claim", body: { workerId: "w1", toolNames: ["t.echo"], leaseMs: 1_000 } });
    expect(server.calls.find((c) => c.route === "complete")?.body).toEqual({ leaseToken: "lease-1", outcome: "completed", result: { echoed: { n: 3 } } });
  });

  it("a heartbeat answering cancelRequested fires ctx.signal; a reported complete partial ends `partial` with the partial result", async () => {
    const { server, client } = fakeServer("t.count");
    let seenReason: unknown;
    const count = tool("t.count", async (_input, ctx) => {
      setTimeout(() => server.stop(), 50);
      try {
        await untilAborted(ctx.signal);
      } catch (reason) {
        seenReason = reason;
        await ctx.reportPartial({ counted: 2 }, { complete: true });
        throw reason;
      }
    });
    const { result, events } = await runOnce(client, [count]);
    expect(result.outcome).toBe("partial");
    expect(seenReason).toMatchObject({ name: "CancelledError", code: "cancel_requested" });
    expect(events.some((e) => e.type === "stop_requested")).toBe(true);
    expect(server.calls.find((c) => c.route === "complete")?.body).toEqual({
      leaseToken: "lease-1",
      outcome: "partial",
      partialResult: { counted: 2 },
      partialComplete: true,
    });
  });

  it("stopped without a partial result → cancelled; with an incomplete one → cancelled_incomplete", async () => {
    for (const [report, outcome] of [
      [null, "cancelled"],
      [{ draft: "half" }, "cancelled_incomplete"],
    ] as const) {
      const { server, client } = fakeServer("t.wait");
      const wait = tool("t.wait", async (_input, ctx) => {
        setTimeout(() => server.stop(), 30);
        await untilAborted(ctx.signal).catch(async (reason) => {
          if (report) await ctx.reportPartial(report, { complete: false });
          throw reason;
        });
      });
      const { result } = await runOnce(client, [wait]);
      expect(result.outcome).toBe(outcome);
    }
  });

  it("a checkpoint refused with cancel_requested ends `cancelled` (nothing was submitted)", async () => {
    const { server, client } = fakeServer("t.commit", true);
    server.refuseCheckpoint = () => apiError(409, "cancel_requested", "task was cancelled");
    const commit = tool(
      "t.commit",
      async (_input, ctx) => {
        await ctx.checkpoint();
        throw new Error("unreachable");
      },
      { commitsEffect: true, mechanism: "none" },
    );
    const { result } = await runOnce(client, [commit]);
    expect(result.outcome).toBe("cancelled");
    expect(server.calls.find((c) => c.route === "complete")?.body).toMatchObject({ outcome: "cancelled" });
  });

  it("after ctx.submitted() a failure is never reported failed: the item is handed to reconciliation as uncertain", async () => {
    const { server, client } = fakeServer("t.order", true);
    const order = tool(
      "t.order",
      async (_input, ctx) => {
        await ctx.checkpoint();
        await ctx.submitted("op-1", { reversible: false });
        throw new Error("the service's answer was lost");
      },
      { commitsEffect: true, mechanism: "none" },
    );
    const { result } = await runOnce(client, [order]);
    expect(result.outcome).toBe("uncertain");
    await sleep(80); // no more heartbeats after the run ended
    const routes = server.calls.map((c) => c.route);
    expect(routes).not.toContain("complete");
    expect(server.calls.find((c) => c.route === "submitted")?.body).toEqual({ leaseToken: "lease-1", operationId: "op-1", reversible: false });
    expect(server.calls.find((c) => c.route === "uncertain")?.body).toMatchObject({ leaseToken: "lease-1", reason: expect.any(String) });
  });

  it("after a passed checkpoint of an effectful tool, a Stop is not reported as cancelled either (uncertain)", async () => {
    const { server, client } = fakeServer("t.order", true);
    const order = tool(
      "t.order",
      async (_input, ctx) => {
        await ctx.checkpoint();
        setTimeout(() => server.stop(), 20);
        await untilAborted(ctx.signal);
      },
      { commitsEffect: true, mechanism: "abort_signal" },
    );
    const { result } = await runOnce(client, [order]);
    expect(result.outcome).toBe("uncertain");
    expect(server.calls.map((c) => c.route)).not.toContain("complete");
  });

  it("a heartbeat refused with stale_lease (the lease was recovered) fires ctx.signal; nothing is reported — the ledger's record stands", async () => {
    const { server, client } = fakeServer("t.wait");
    let reason: unknown;
    const wait = tool("t.wait", async (_input, ctx) => {
      setTimeout(() => (server.heartbeat = () => apiError(409, "stale_lease", "lease token is not current")), 30);
      await untilAborted(ctx.signal).catch((r) => {
        reason = r;
        throw r;
      });
    });
    const { result } = await runOnce(client, [wait]);
    expect(result.outcome).toBe("lost_lease");
    expect(reason).toMatchObject({ name: "StaleLeaseError" });
    expect(server.calls.map((c) => c.route)).not.toContain("complete");
  });

  it("a claim answered after more than half its lease: the worker asks the server before running — a recovered lease or a Stop means the tool never runs", async () => {
    for (const [answer, expected] of [
      [() => apiError(409, "stale_lease", "lease token is not current"), "lost_lease"],
      [undefined, "cancelled"],
    ] as const) {
      const { server, client } = fakeServer("t.generate");
      server.claimDelayMs = 600; // leaseMs 1000
      if (answer) server.heartbeat = answer;
      else server.stop();
      let ran = false;
      const generate = tool("t.generate", async () => {
        ran = true;
      });
      const { result } = await runOnce(client, [generate]);
      expect(result.outcome).toBe(expected);
      expect(ran, "the tool's request never left").toBe(false);
      const routes = server.calls.map((c) => c.route);
      expect(routes.indexOf("heartbeat"), "the lease was confirmed first").toBeGreaterThan(routes.indexOf("/api/workers/claim"));
    }
  });

  it("a claim answered at once runs without waiting for a heartbeat", async () => {
    const { server, client } = fakeServer("t.generate");
    let routesBeforeRun: string[] | null = null;
    const { result } = await runOnce(client, [tool("t.generate", async () => void (routesBeforeRun = server.calls.map((c) => c.route)))]);
    expect(result.outcome).toBe("completed");
    expect(routesBeforeRun, "the tool ran, and no heartbeat came before it").not.toContain("heartbeat");
    expect(routesBeforeRun).toContain("/api/workers/claim");
  });

  it("no heartbeat gets through for a whole lease (the network is down): the lease counts as lost and ctx.signal fires", async () => {
    const { server, client } = fakeServer("t.wait");
    const hang = (signal: AbortSignal | undefined) =>
      new Promise<Response>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const started = Date.now();
    let abortedAfter = 0;
    const wait = tool("t.wait", async (_input, ctx) => {
      server.heartbeat = hang;
      await untilAborted(ctx.signal).catch((r) => {
        abortedAfter = Date.now() - started;
        throw r;
      });
    });
    const { result } = await runOnce(client, [wait]);
    expect(result.outcome).toBe("lost_lease");
    expect(abortedAfter).toBeGreaterThanOrEqual(900); // leaseMs 1000, by the worker's own clock
    expect(abortedAfter).toBeLessThan(3_000);
  });

  it("a provider_cancel tool that only stopped WAITING after a Stop is left uncertain for the server to cancel and inspect; a confirmed stop (StoppedError) is cancelled", async () => {
    for (const [thrown, outcome] of [
      [null, "uncertain"],
      [StoppedError, "cancelled"],
      [ContractStoppedError, "cancelled"],
    ] as const) {
      const { server, client } = fakeServer("t.remote");
      const remote = tool(
        "t.remote",
        async (_input, ctx) => {
          setTimeout(() => server.stop(), 20);
          await untilAborted(ctx.signal).catch((reason) => {
            throw thrown ? new thrown("the job service confirmed: cancelled") : reason;
          });
        },
        { mechanism: "provider_cancel" },
      );
      const { result } = await runOnce(client, [remote]);
      expect(result.outcome).toBe(outcome);
      const completes = server.calls.filter((c) => c.route === "complete");
      expect(completes.map((c) => c.body.outcome)).toEqual(outcome === "uncertain" ? [] : ["cancelled"]);
    }
  });

  it("remote work past its checkpoint whose start answer was lost (no Stop) is handed over uncertain, never failed — the same rule as the in-process runner (issue 19, seed 2027 #0)", async () => {
    const { server, client } = fakeServer("t.export");
    const exporter = tool(
      "t.export",
      async (_input, ctx) => {
        await ctx.checkpoint();
        throw new Error("socket hang up"); // the export may have started at its service
      },
      { mechanism: "provider_cancel", cancel: async () => {}, inspect: async () => ({ status: "running" }) },
    );
    const { result } = await runOnce(client, [exporter]);
    expect(result.outcome).toBe("uncertain");
    expect(server.calls.filter((c) => c.route === "complete")).toEqual([]);
    expect(server.calls.find((c) => c.route === "uncertain")?.body.reason).toMatch(/remote work may have started.*socket hang up/);
  });

  it("a provider_cancel tool with its contract, stopped: this worker cancels and asks the service itself (it hosts the contract) — not committed → cancelled; committed without submitted() → the effect is recorded, then completed", async () => {
    for (const [answer, outcome] of [
      ["not_committed", "cancelled"],
      ["committed", "completed"],
    ] as const) {
      const { server, client } = fakeServer("t.job", true);
      const asked: string[] = [];
      const job = tool(
        "t.job",
        async (_input, ctx) => {
          await ctx.checkpoint();
          setTimeout(() => server.stop(), 20);
          await untilAborted(ctx.signal);
        },
        {
          mechanism: "provider_cancel",
          commitsEffect: true,
          risk: "high",
          cancel: async () => void asked.push("cancel"),
          inspect: async () => {
            asked.push("inspect");
            return answer === "committed"
              ? { status: "committed", externalRecordId: "rec_9", externalVersion: "1", description: "record rec_9" }
              : { status: "not_committed" };
          },
        },
      );
      const { result } = await runOnce(client, [job]);
      expect(result.outcome).toBe(outcome);
      expect(asked.slice(0, 2)).toEqual(["cancel", "inspect"]);
      expect(server.calls.find((c) => c.route === "/api/workers/hosts")?.body).toMatchObject({
        hostId: "w1",
        tools: [{ name: "t.job", capabilities: ["inspect", "cancel"], mechanism: "provider_cancel", commitsEffect: true }],
      });
      const complete = server.calls.find((c) => c.route === "complete")?.body;
      expect(complete).toMatchObject({ outcome });
      if (outcome === "completed") {
        expect(server.calls.find((c) => c.route === "submitted")?.body).toMatchObject({ operationId: "rec_9", externalRecordId: "rec_9", reversible: false });
        expect(complete).toMatchObject({ externalRecordId: "rec_9" });
      } else expect(server.calls.map((c) => c.route)).not.toContain("submitted");
      expect(server.calls.map((c) => c.route)).not.toContain("uncertain");
    }
  });

  it("a tool that fails before any checkpoint ends `failed` with its message", async () => {
    const { server, client } = fakeServer("t.fail");
    const { result } = await runOnce(client, [tool("t.fail", async () => Promise.reject(new Error("disk full")))]);
    expect(result.outcome).toBe("failed");
    expect(server.calls.find((c) => c.route === "complete")?.body).toMatchObject({ outcome: "failed", error: "disk full" });
  });

  it("ctx.holdResource, ctx.releaseResource and ctx.reportPartial are recorded on the server with the lease token", async () => {
    const { server, client } = fakeServer("t.res");
    let held: unknown;
    await runOnce(client, [
      tool("t.res", async (_input, ctx) => {
        held = await ctx.holdResource("lock", "reports/1");
        await ctx.reportPartial({ rows: 2 }, { complete: true });
        await ctx.releaseResource("lock", "reports/1");
        return null;
      }),
    ]);
    expect(held).toMatchObject({ id: "res_1", type: "lock", handle: "reports/1" });
    expect(server.calls.find((c) => c.route === "resources")?.body).toEqual({ leaseToken: "lease-1", type: "lock", handle: "reports/1" });
    expect(server.calls.find((c) => c.route === "partial")?.body).toEqual({ leaseToken: "lease-1", result: { rows: 2 }, complete: true });
    expect(server.calls.find((c) => c.route === "resources/release")?.body).toEqual({ leaseToken: "lease-1", type: "lock", handle: "reports/1" });
  });

  it("a token that may not claim stops the worker with the error", async () => {
    const fetch = async () => apiError(403, "forbidden", "an agent token may not claim");
    const client = new StoplineClient({ baseUrl: "http://fake", token: "t", fetch: fetch as typeof globalThis.fetch });
    await expect(runWorker({ client, tools: [tool("t.x", async () => null)], workerId: "w1" })).rejects.toMatchObject({ name: "ForbiddenError" });
  });
});
