import { randomUUID } from "node:crypto";
import { INVALID_PARAMS, McpServer, ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { Database } from "../db/client";
import { type AppError, ErrorCode, isAppError } from "../errors";
import { statusOf } from "../api/http-errors";
import { tokenRef } from "../auth/tokens";
import { activeIncident, quarantinedError } from "../incidents/quarantine";
import { createTask } from "../ledger/create-task";
import { startWorkItem } from "../ledger/start-work-item";
import {
  IncidentTarget,
  isTerminalItem,
  Mechanism,
  QUARANTINE_STATES,
  StopScope,
  TaskStage,
  WorkItemKind,
  WorkItemStatus,
  type IncidentState,
} from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import { onCommitted } from "../events/bus";
import { connectMcpTools, type McpCallInput, type McpToolSet } from "../tools/adapters/mcp";
import type { McpToolInfo } from "../tools/adapters/mcp-mapping";
import { StoppedError, type ToolDefinition } from "../tools/contract";
import type { ToolRegistry } from "../tools/registry";
import { runWorkItem } from "../workers/run-work-item";
import type { DownstreamServerConfig, GatewayConfig } from "./config";
import { GATEWAY_ACTOR, inspectBoundMs, requestCallStop, settleStoppedCall } from "./stop-call";
import { LedgerEvent } from "../ledger/events";

/**
 * The MCP gateway: Stopline as an MCP server in front of downstream MCP servers (stdio or Streamable HTTP).
 * Every `tools/call` becomes a work item of ONE task per client session, started inline (scheduled and leased
 * in one transaction), run by the in-process runner with the downstream call going through the MCP adapter —
 * so the console and the API see and stop it like any other child:
 *
 * - Stop of the session's task (console, API) → the cancellation engine stops every running call through
 *   its contract (the adapter's cancel/inspect, which live in the engine's registry), and the session accepts
 *   no new call afterwards (invariant 2: nothing starts after the boundary);
 * - the client's own cancel of ONE call (2025-11-25 `notifications/cancelled`; 2026-07-28 the closed response
 *   stream) → a Stop of that call only (stop-call.ts);
 * - an incident's kill switch on a tool or on the client's API token (lib/incidents) → the same ledger path: the switch
 *   records each running call's boundary (or its task's, for a token), the call's runner fires its AbortSignal on
 *   that commit (or on its next heartbeat when the switch was turned on in another process), the adapter cancels
 *   downstream, and the engine settles the call; a new call is refused before it starts (`refusedAnswer`);
 * - `stopCalls(filter)` stops running calls of this process by tool, session or work item (an operator's tool).
 *
 * Resources, prompts and completions of the downstream servers are relayed as they are (#relay): reads change
 * nothing, so they are no work items.
 *
 * The client's answer is the ledger's: the downstream result when the item completed; otherwise an error
 * result that says what is known ("stopped", "cancellation sent but not confirmed", …) — never a success that
 * did not happen.
 */
export interface GatewayOptions {
  database: Database;
  /** The registry the cancellation engine uses: the gateway's tools are registered in it (cancel/inspect). */
  registry: ToolRegistry;
  config: GatewayConfig;
  workerId?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  /** What becomes of stdio servers' stderr (default "ignore"); "pipe" exposes it as `tool.set.stderr` (tests read a server's own log there). */
  downstreamStderr?: "ignore" | "inherit" | "pipe";
}

export interface GatewayTool {
  /** The name MCP clients call. */
  name: string;
  server: string;
  info: McpToolInfo;
  def: ToolDefinition<McpCallInput, unknown>;
  set: McpToolSet;
  /** How long one inspect() of a stopped call may take (its server's confirmGraceMs, then SERVICE_ANSWER_MS). */
  inspectWithinMs: number;
}

export interface SessionRef {
  /** Stable key of the client session (legacy: the Mcp-Session-Id or stdio connection; modern: principal + client + optional session _meta). */
  key: string;
  ownerId: string;
  clientName: string;
  actor: string;
  /**
   * The API token the client authenticated with (its id), if any: an incident's kill switch on that token refuses
   * every call of it (409-equivalent, with the incident's reason) and has stopped the tasks it owns.
   */
  tokenId?: string | null;
}

interface Session extends SessionRef {
  taskId: string | null;
  intentVersion: number;
  creating: Promise<void> | null;
  lastCallAt: number;
  inFlight: Set<string>;
}

export type CallAnswer = {
  content: { type: "text"; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

export class McpGateway {
  readonly tools = new Map<string, GatewayTool>();
  readonly sessions = new Map<string, Session>();
  readonly workerId: string;
  readonly #o: Required<Omit<GatewayOptions, "config" | "downstreamStderr">> & { config: GatewayConfig; downstreamStderr?: GatewayOptions["downstreamStderr"] };
  readonly #sets: McpToolSet[] = [];
  /** The downstream servers, for what is relayed as it is (resources, prompts, completions, logging): no work items. */
  readonly #relays: { server: string; prefix: string; set: McpToolSet }[] = [];
  readonly #resourceOwner = new Map<string, McpToolSet>();
  readonly #promptOwner = new Map<string, { set: McpToolSet; name: string }>();
  readonly #running = new Map<string, { tool: GatewayTool; session: Session; clientStop: boolean }>();
  #idleTimer: NodeJS.Timeout | undefined;

  private constructor(options: GatewayOptions) {
    this.workerId = options.workerId ?? `mcp-gateway-${randomUUID().slice(0, 8)}`;
    this.#o = { leaseMs: 30_000, heartbeatMs: 2_000, ...options, workerId: this.workerId };
  }

  /** Connects every downstream server of the config and registers their tools in the engine's registry. */
  static async start(options: GatewayOptions): Promise<McpGateway> {
    const gateway = new McpGateway(options);
    try {
      for (const [server, config] of Object.entries(options.config.servers)) await gateway.#connect(server, config);
    } catch (error) {
      await gateway.close();
      throw error;
    }
    const idleMs = options.config.sessionIdleMs ?? 30 * 60_000;
    gateway.#idleTimer = setInterval(() => void gateway.#endIdleSessions(idleMs), Math.min(idleMs, 60_000));
    gateway.#idleTimer.unref();
    return gateway;
  }

  async #connect(server: string, config: DownstreamServerConfig) {
    const contracts = config.tools ?? {};
    const set = await connectMcpTools({
      prefix: `mcp:${server}`,
      transport: config.stdio ? { stdio: { ...config.stdio, stderr: this.#o.downstreamStderr ?? "ignore" } } : { url: config.url!, headers: config.headers },
      protocol: config.protocol,
      tools: config.only,
      confirmGraceMs: config.confirmGraceMs,
      clientInfo: { name: "stopline-mcp-gateway", version: "0.1.0" },
      commitsEffect: (tool) => contracts[tool.name]?.commitsEffect ?? (tool.annotations?.readOnlyHint === true ? false : true),
      risk: (tool) => contracts[tool.name]?.risk ?? (tool.annotations?.readOnlyHint === true || tool.annotations?.destructiveHint === false ? "low" : "high"),
      inspectVia: (tool) => {
        const c = contracts[tool.name];
        return c?.inspect || c?.idempotencyKeyArgument ? { ...c.inspect, idempotencyKeyArgument: c.idempotencyKeyArgument } : undefined;
      },
    });
    this.#sets.push(set);
    this.#relays.push({ server, prefix: config.prefix ?? "", set });
    const listed = await this.#listInfos(set);
    for (const def of set.tools) {
      const original = def.name.slice(`mcp:${server}.`.length);
      const info = listed.get(original) ?? { name: original, inputSchema: { type: "object" } };
      const mechanism = contracts[info.name]?.mechanism;
      const tool: ToolDefinition<McpCallInput, unknown> = mechanism === Mechanism.none ? { ...def, mechanism: Mechanism.none } : def;
      const name = `${config.prefix ?? ""}${info.name}`;
      if (this.tools.has(name)) throw new Error(`two downstream servers offer a tool named "${name}": give one of them a prefix in the gateway config`);
      this.tools.set(name, { name, server, info, def: tool, set, inspectWithinMs: inspectBoundMs(config.confirmGraceMs) });
      if (!this.#o.registry.local(tool.name)) this.#o.registry.register(tool);
    }
  }

  /** The adapter keeps the server's descriptions; the gateway needs them again for tools/list. */
  async #listInfos(set: McpToolSet): Promise<Map<string, McpToolInfo>> {
    return new Map(set.infos.map((i) => [i.name, i]));
  }

  /** An MCP server instance for one client session (legacy) or one request (modern): tools/list and tools/call. */
  buildServer(session: (ctx: any) => SessionRef): McpServer {
    const offers = (capability: string) => this.#relays.filter((r) => r.set.capabilities[capability]);
    const capabilities: Record<string, unknown> = { tools: {} };
    for (const capability of ["resources", "prompts", "completions", "logging"]) if (offers(capability).length) capabilities[capability] = {};
    const server = new McpServer({ name: "stopline-mcp-gateway", version: "0.1.0" }, { capabilities });
    const low = server.server as unknown as { setRequestHandler(method: string, handler: (request: any, ctx: any) => Promise<unknown>): void };
    this.#relay(low, offers);
    low.setRequestHandler("tools/list", async () => ({
      tools: [...this.tools.values()].map((t) => ({
        name: t.name,
        ...(t.info.title ? { title: t.info.title } : {}),
        description: t.info.description ?? `${t.info.name} on ${t.server}`,
        inputSchema: t.info.inputSchema,
        ...(t.info.annotations ? { annotations: t.info.annotations } : {}),
      })),
    }));
    low.setRequestHandler(
      "tools/call",
      async (request: { params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } }, ctx) => {
        // The spec's answer to a tool nobody offers: a JSON-RPC error (-32602), not a tool result; nothing is recorded.
        if (!this.tools.has(request.params.name)) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${request.params.name}`);
        const progressToken = ctx.mcpReq?._meta?.progressToken;
        return this.callTool(session(ctx), request.params.name, request.params.arguments, {
          signal: ctx.mcpReq.signal,
          requestId: ctx.mcpReq.id,
          onProgress:
            progressToken === undefined
              ? undefined
              : (p) =>
                  void ctx.mcpReq
                    .notify({ method: "notifications/progress", params: { progressToken, progress: p.progress, total: p.total, message: p.message } })
                    .catch(() => {}),
        });
      },
    );
    return server;
  }

  /**
   * What the gateway relays as it is, without a work item (issue 23): reads and prompts change nothing in the world,
   * so they need no Stop. Resources are routed by URI (as listed, else by asking each server), prompts by name (with
   * the server's prefix, like its tools); an upstream's error comes back as that error.
   */
  #relay(
    low: { setRequestHandler(method: string, handler: (request: any, ctx: any) => Promise<unknown>): void },
    offers: (capability: string) => { prefix: string; set: McpToolSet }[],
  ) {
    const forward = async (set: McpToolSet, method: string, params: Record<string, unknown> | undefined) => {
      try {
        return await set.request(method, params);
      } catch (error) {
        const e = error as { code?: unknown; message?: string; data?: unknown };
        throw typeof e.code === "number"
          ? new ProtocolError(e.code, String(e.message ?? "the upstream server refused").replace(/^MCP error -?\d+: /, ""), e.data)
          : error;
      }
    };
    const all = async (capability: string, method: string, key: string) => {
      const out: Record<string, unknown>[] = [];
      for (const relay of offers(capability)) {
        let cursor: string | undefined;
        for (let page = 0; page < 50; page++) {
          const answer = await forward(relay.set, method, cursor ? { cursor } : undefined);
          for (const entry of (answer[key] as Record<string, unknown>[] | undefined) ?? []) out.push({ ...entry, __relay: relay });
          cursor = answer.nextCursor as string | undefined;
          if (!cursor) break;
        }
      }
      return out;
    };
    const strip = ({ __relay: _r, ...entry }: Record<string, unknown>) => entry;
    if (offers("resources").length) {
      low.setRequestHandler("resources/list", async () => {
        const resources = await all("resources", "resources/list", "resources");
        for (const r of resources) this.#resourceOwner.set(String(r.uri), (r.__relay as { set: McpToolSet }).set);
        return { resources: resources.map(strip) };
      });
      low.setRequestHandler("resources/templates/list", async () => ({
        resourceTemplates: (await all("resources", "resources/templates/list", "resourceTemplates")).map(strip),
      }));
      low.setRequestHandler("resources/read", async (request: { params: { uri: string } }) => {
        const known = this.#resourceOwner.get(request.params.uri);
        if (known) return forward(known, "resources/read", request.params);
        let last: unknown;
        for (const { set } of offers("resources")) {
          try {
            const answer = await forward(set, "resources/read", request.params);
            this.#resourceOwner.set(request.params.uri, set);
            return answer;
          } catch (error) {
            last = error; // not this server's: ask the next one
          }
        }
        throw last ?? new ResourceNotFoundError(request.params.uri);
      });
    }
    const promptsList = async () => {
      const prompts = await all("prompts", "prompts/list", "prompts");
      return prompts.map((p) => {
        const relay = p.__relay as { prefix: string; set: McpToolSet };
        const name = `${relay.prefix}${String(p.name)}`;
        this.#promptOwner.set(name, { set: relay.set, name: String(p.name) });
        return { ...strip(p), name };
      });
    };
    if (offers("prompts").length) {
      low.setRequestHandler("prompts/list", async () => ({ prompts: await promptsList() }));
      low.setRequestHandler("prompts/get", async (request: { params: { name: string; arguments?: Record<string, string> } }) => {
        if (!this.#promptOwner.has(request.params.name)) await promptsList();
        const owner = this.#promptOwner.get(request.params.name);
        if (!owner) throw new ProtocolError(INVALID_PARAMS, `Unknown prompt: ${request.params.name}`);
        return forward(owner.set, "prompts/get", { ...request.params, name: owner.name });
      });
    }
    if (offers("completions").length) {
      low.setRequestHandler(
        "completion/complete",
        async (request: { params: { ref: { type: string; name?: string; uri?: string } } & Record<string, unknown> }) => {
          const { ref } = request.params;
          if (ref.type === "ref/prompt") {
            if (!this.#promptOwner.has(String(ref.name)) && offers("prompts").length) await promptsList();
            const owner = this.#promptOwner.get(String(ref.name));
            if (!owner) throw new ProtocolError(INVALID_PARAMS, `Unknown prompt: ${ref.name}`);
            return forward(owner.set, "completion/complete", { ...request.params, ref: { ...ref, name: owner.name } });
          }
          const set = offers("completions")[0].set;
          return forward(this.#resourceOwner.get(String(ref.uri)) ?? set, "completion/complete", request.params);
        },
      );
    }
    if (offers("logging").length) {
      // The gateway itself sends no log messages, so any level holds for it; the level goes on to the 2025-era upstreams
      // that take it (2026-07-28 has no logging/setLevel: the level travels per request there, and is not relayed).
      low.setRequestHandler("logging/setLevel", async (request: { params: Record<string, unknown> }) => {
        for (const { set } of offers("logging")) if (set.era !== "modern") await forward(set, "logging/setLevel", request.params);
        return {};
      });
    }
  }

  /** One tools/call: a work item of the session's task, run inline; answered from what the ledger recorded. */
  async callTool(
    ref: SessionRef,
    name: string,
    args: Record<string, unknown> | undefined,
    options: { signal?: AbortSignal; requestId?: string | number; onProgress?: (p: { progress: number; total?: number; message?: string }) => void } = {},
  ): Promise<CallAnswer> {
    const tool = this.tools.get(name);
    if (!tool) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
    // A kill switch on the client's token or on the tool: refused before anything is recorded (no session task is
    // made for it). The same checks run again inside the start's transaction, which settles a race with the switch.
    const switches: [IncidentTarget, string][] = [
      ...(ref.tokenId ? [[IncidentTarget.token, ref.tokenId] as [IncidentTarget, string]] : []),
      [IncidentTarget.tool, tool.def.name],
    ];
    for (const [kind, target] of switches) {
      const incident = await activeIncident(this.#o.database.prisma as never, kind, target);
      if (incident) return refusedAnswer(quarantinedError(incident));
    }
    let session = await this.#session(ref);
    let item;
    for (let attempt = 0; ; attempt++) {
      try {
        item = await startWorkItem(
          this.#o.database,
          {
            taskId: session.taskId!,
            kind: tool.def.commitsEffect ? WorkItemKind.externalAction : WorkItemKind.remoteTool,
            toolName: tool.def.name,
            mechanism: tool.def.mechanism,
            commitsEffect: tool.def.commitsEffect,
            intentVersion: session.intentVersion,
            correlationId: `mcp-${options.requestId ?? "call"}-${randomUUID().slice(0, 8)}`,
            input: args ?? {},
            workerId: this.workerId,
            leaseMs: this.#o.leaseMs,
            tokenId: ref.tokenId ?? null,
          },
          ref.actor,
        );
        break;
      } catch (error) {
        // A kill switch on the tool (or the token) — the 409 of the HTTP API, as an MCP error result with the reason.
        if (isAppError(error) && error.code === ErrorCode.quarantined) return refusedAnswer(error);
        if (isAppError(error) && error.code === ErrorCode.cancelRequested) {
          // The session's task was stopped by a kill switch that has been lifted since: the session goes on in a new
          // task (the stopped one stays as it was recorded).
          if (attempt === 0 && (await this.#stoppedByLiftedSwitch(session.taskId!))) {
            session = await this.#renewSession(session);
            continue;
          }
          // 2026-07-28 has no sessions: a "session" is the client's name (and its optional _meta session), so a new
          // process of the same client would be refused for ever. Once the Stop has settled — what was running is
          // accounted for — its next call starts a new task; while the Stop is still being carried out, calls are refused.
          if (attempt === 0 && session.key.startsWith("modern:")) {
            if (await this.#stopSettled(session.taskId!)) {
              session = await this.#renewSession(session);
              continue;
            }
            return errorAnswer(
              `Stopline: this client's work is being stopped (${error.message}). Nothing new starts until the Stop is settled; call again in a moment.`,
            );
          }
          return errorAnswer(`Stopline: this session was stopped (${error.message}). Nothing new starts in it; open a new session to continue.`);
        }
        throw error;
      }
    }
    session.inFlight.add(item.id);
    session.lastCallAt = Date.now();
    const running = { tool, session, clientStop: false };
    this.#running.set(item.id, running);
    const unsubscribe = options.onProgress ? tool.set.onProgress(item.id, options.onProgress) : () => {};
    const onClientCancel = () => {
      running.clientStop = true;
      void requestCallStop(this.#o.database, {
        workItemId: item.id,
        actor: ref.actor,
        reason: `the MCP client cancelled this call (${String(options.signal?.reason ?? "request cancelled")})`,
      });
    };
    options.signal?.addEventListener("abort", onClientCancel, { once: true });
    // A call stopped on its own (not its task) is settled INSIDE the run, while the item is still `cancelling` and
    // leased to this process: the engine's maintenance pass reconciles `uncertain` items of tasks that were not
    // stopped, and would call a withdrawn call "failed" — the outcome of a call-level Stop is established here.
    const def = tool.def as ToolDefinition;
    const runner: ToolDefinition = {
      ...def,
      run: async (input, ctx) => {
        try {
          return await def.run(input, ctx);
        } catch (error) {
          // A StoppedError is a confirmed stop (a call without effects): the runner records it as such.
          if (!(error instanceof StoppedError) && (running.clientStop || (await this.#stoppedAsCall(item.id))))
            await settleStoppedCall(this.#o.database, def, item.id, { inspectWithinMs: tool.inspectWithinMs });
          throw error;
        }
      },
    };
    try {
      const report = await runWorkItem({
        database: this.#o.database,
        tool: runner,
        item,
        workerId: this.workerId,
        leaseMs: this.#o.leaseMs,
        heartbeatMs: this.#o.heartbeatMs,
      });
      if (!isTerminalItem(report.outcome) && !running.clientStop) await this.#awaitEngine(item.id, 5_000);
      return await this.#answer(item.id, tool);
    } finally {
      options.signal?.removeEventListener("abort", onClientCancel);
      unsubscribe();
      session.inFlight.delete(item.id);
      this.#running.delete(item.id);
    }
  }

  /** Stops running calls one by one (not their tasks): by tool name, session, or work item (a kill switch does not need it: see the header). */
  async stopCalls(filter: { toolName?: string; sessionKey?: string; workItemId?: string }, actor: string, reason: string): Promise<string[]> {
    const stopped: string[] = [];
    for (const [id, r] of this.#running) {
      if (filter.workItemId && id !== filter.workItemId) continue;
      if (filter.toolName && r.tool.name !== filter.toolName && r.tool.def.name !== filter.toolName) continue;
      if (filter.sessionKey && r.session.key !== filter.sessionKey) continue;
      r.clientStop = true;
      if (await requestCallStop(this.#o.database, { workItemId: id, actor, reason })) stopped.push(id);
    }
    return stopped;
  }

  /** True when the task was stopped by an incident's kill switch that is no longer on (lifted by two people). */
  async #stoppedByLiftedSwitch(taskId: string): Promise<boolean> {
    const task = await this.#o.database.prisma.task.findUnique({ where: { id: taskId }, select: { cancelScope: true, cancelScopeRef: true } });
    if (task?.cancelScope !== StopScope.incident || !task.cancelScopeRef) return false;
    const incident = await this.#o.database.prisma.incident.findUnique({ where: { id: task.cancelScopeRef }, select: { state: true } });
    return !!incident && !QUARANTINE_STATES.includes(incident.state as IncidentState);
  }

  /** The task's Stop has settled (the engine finished its pass). */
  async #stopSettled(taskId: string): Promise<boolean> {
    const task = await this.#o.database.prisma.task.findUnique({ where: { id: taskId }, select: { settledAt: true } });
    return !!task?.settledAt;
  }

  /** A new task for a session whose task a lifted kill switch stopped (calls already running stay with the old one). */
  async #renewSession(session: Session): Promise<Session> {
    if (this.sessions.get(session.key) === session) this.sessions.delete(session.key);
    const { key, ownerId, clientName, actor, tokenId } = session;
    const renewed = await this.#session({ key, ownerId, clientName, actor, tokenId });
    for (const id of session.inFlight) renewed.inFlight.add(id);
    return renewed;
  }

  /** The session's task: created on its first call, completed when the session ends. */
  async #session(ref: SessionRef): Promise<Session> {
    let session = this.sessions.get(ref.key);
    if (!session) {
      session = { ...ref, taskId: null, intentVersion: 1, creating: null, lastCallAt: Date.now(), inFlight: new Set() };
      this.sessions.set(ref.key, session);
    }
    const s = session;
    if (!s.taskId) {
      s.creating ??= (async () => {
        const risky = [...this.tools.values()].some((t) => t.def.risk === "high");
        const task = await createTask(
          this.#o.database,
          {
            title: `MCP session: ${ref.clientName}`,
            ownerId: ref.ownerId,
            conversationId: `mcp:${ref.key}`,
            riskLevel: risky ? "high" : "low",
            createdById: ref.tokenId ? tokenRef(ref.tokenId) : null,
          },
          ref.actor,
        );
        s.taskId = task.id;
        s.intentVersion = task.intentVersion;
      })().finally(() => {
        s.creating = null;
      });
      await s.creating;
    }
    return s;
  }

  /** Ends a client session: its task is completed if nothing runs in it and it was not stopped. */
  async endSession(key: string) {
    const session = this.sessions.get(key);
    if (!session) return;
    this.sessions.delete(key);
    if (!session.taskId || session.inFlight.size) return;
    await writeLedger(this.#o.database, async (w) => {
      // Locked before the count: a call starting in this session at the same moment waits, or is counted.
      await w.lockRow("task", session.taskId!, "exclusive");
      const task = await w.tx.task.findUnique({ where: { id: session.taskId! } });
      if (!task || task.stage !== TaskStage.active) return;
      const open = await w.tx.workItem.count({
        where: {
          taskId: task.id,
          status: {
            in: [
              WorkItemStatus.queued,
              WorkItemStatus.running,
              WorkItemStatus.submitted,
              WorkItemStatus.cancelling,
              WorkItemStatus.uncertain,
              WorkItemStatus.unrecoverable,
            ],
          },
        },
      });
      if (open) return;
      await casUpdate(w, {
        entity: "task",
        id: task.id,
        from: TaskStage.active,
        to: TaskStage.completed,
        guard: { cancelRequestedAt: null },
        event: { taskId: task.id, actor: GATEWAY_ACTOR, type: LedgerEvent.taskCompleted, reason: "the MCP client session ended" },
      });
    }).catch(() => {});
  }

  async #endIdleSessions(idleMs: number) {
    for (const [key, s] of this.sessions) if (!s.inFlight.size && Date.now() - s.lastCallAt > idleMs) await this.endSession(key);
  }

  async #stoppedAsCall(workItemId: string) {
    // By task first: the ledger's (taskId, seq) index finds the task's events; there is no index by work item.
    const item = await this.#o.database.prisma.workItem.findUnique({ where: { id: workItemId }, select: { taskId: true } });
    if (!item) return false;
    const events = await this.#o.database.prisma.ledgerEvent.findMany({
      where: { taskId: item.taskId, workItemId, type: LedgerEvent.workItemCancelling },
      select: { data: true },
    });
    return events.some((e) => (e.data as { scope?: string } | null)?.scope === "call");
  }

  /** After a task-level Stop the engine settles the item; the client waits a moment for its verdict. */
  async #awaitEngine(workItemId: string, timeoutMs: number) {
    const done = async () => {
      const item = await this.#o.database.prisma.workItem.findUnique({ where: { id: workItemId }, select: { status: true } });
      return !item || isTerminalItem(item.status);
    };
    if (await done()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, timeoutMs);
      const off = onCommitted((events) => {
        if (events.some((e) => e.workItemId === workItemId)) void done().then((d) => d && finish());
      });
      function finish() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }

  /** What the ledger says about the call, as an MCP result. */
  async #answer(workItemId: string, tool: GatewayTool): Promise<CallAnswer> {
    const item = await this.#o.database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId } });
    const seen = tool.set.observation(workItemId);
    const meta = { "dev.stopline/workItem": { id: item.id, taskId: item.taskId, status: item.status } };
    if (item.status === WorkItemStatus.completed)
      return { ...(item.result as CallAnswer), _meta: { ...((item.result as CallAnswer | null)?._meta ?? {}), ...meta } };
    if (seen?.answer?.kind === "result" && seen.answer.isError && item.status === WorkItemStatus.failed)
      return { ...(seen.answer.result as CallAnswer), isError: true, _meta: meta };
    const events = await this.#o.database.prisma.ledgerEvent.findMany({
      where: { taskId: item.taskId, workItemId },
      orderBy: { seq: "desc" },
      take: 5,
      select: { reason: true },
    });
    const why = events.find((e) => e.reason)?.reason;
    const words: Record<string, string> = {
      failed: `the call failed: ${item.error ?? why ?? "no reason recorded"}`,
      cancelled: "the call was stopped before it completed (confirmed by the server)",
      partial: "the call was stopped; a partial result was kept",
      cancelled_incomplete: "the call was stopped; its partial result was discarded",
      uncertain: `the outcome is not known yet: ${why ?? "cancellation sent but not confirmed"}`,
      cancelling: "the call is being stopped",
      unrecoverable: "the call cannot be stopped; it is watched until it ends",
    };
    return { ...errorAnswer(`Stopline: ${words[item.status] ?? `the call is ${item.status}`}`), _meta: meta };
  }

  async close() {
    clearInterval(this.#idleTimer);
    await Promise.allSettled(this.#sets.map((s) => s.close()));
  }
}

const errorAnswer = (text: string): CallAnswer => ({ content: [{ type: "text", text }], isError: true });

/**
 * A call refused before it started (an incident's kill switch): what the HTTP API answers with 409 `quarantined`,
 * as an MCP tool error the agent (and its model) can read — the incident and its reason — with the code and status
 * in `_meta["dev.stopline/error"]` for programs. Nothing was recorded or sent downstream.
 */
function refusedAnswer(error: AppError): CallAnswer {
  return {
    content: [{ type: "text", text: `Stopline refused this call: ${error.message}. Nothing was started.` }],
    isError: true,
    _meta: { "dev.stopline/error": { code: error.code, status: statusOf(error.code), ...error.details } },
  };
}
