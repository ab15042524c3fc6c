import type { Stream } from "node:stream";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { z } from "zod";
import type { RiskLevel } from "../../ledger/states";
import type { ToolDefinition } from "../contract";
import type { McpInspectVia } from "./mcp-inspect-via";
import type { McpToolInfo } from "./mcp-mapping";
import { CallObserver, ObservingTransport, type McpCallObservation, type McpProgress } from "./mcp-observation";
import { McpServerTasks } from "./mcp-server-tasks";
import { type McpCallInput, mcpTool } from "./mcp-tool";

export type { McpInspectVia } from "./mcp-inspect-via";
export type { McpCallInput } from "./mcp-tool";

/**
 * The MCP adapter: every tool of an MCP server (stdio or Streamable HTTP) becomes a Stopline tool.
 *
 * How Stop reaches a call (mechanism `provider_cancel`): the call runs with the run's AbortSignal, so when the
 * Stop is recorded the SDK sends `notifications/cancelled {requestId, reason}`; `cancel(ref)` aborts the same
 * call (safe to repeat). The MCP specification lets a server ignore a cancellation and tells it not to
 * answer a cancelled request, and MCP has no way to ask a server afterwards what became of a call. So this
 * adapter reports ONLY WHAT IT OBSERVED on the connection that carried the call — every message of it is
 * recorded per call (McpCallObservation):
 *
 * | observed                                                        | inspect()                     |
 * |-----------------------------------------------------------------|-------------------------------|
 * | an answer with a result (`isError` not set), before or after the cancel | `committed` (the result)  |
 * | an answer with an error, or a result with `isError`             | `not_committed`               |
 * | the call was never sent (refused before it left)                | `not_committed`               |
 * | no cancel sent, no answer yet                                   | `running`                     |
 * | cancel sent, no answer, progress still arriving after the cancel | `running`                    |
 * | cancel sent, no answer within the grace period, progress stopped or never continued | `unknown`: "cancellation sent but not confirmed" |
 * | the connection closed before an answer; no record in this process | `unknown`, with the reason  |
 *
 * Silence is never taken for a stop: a server that stops sending progress and never answers may still be
 * working (server-everything's `trigger-long-running-operation` does exactly that). `inspect()` waits up to
 * `confirmGraceMs` after the cancel for an answer before it says so.
 *
 * Effects and annotations. A tool annotated `readOnlyHint: true` is preparation (`commitsEffect: false`, low
 * risk). Any other tool may have effects (`commitsEffect: true`; high risk unless `destructiveHint: false`):
 * it passes a checkpoint before the call is sent, and the call is recorded as submitted before it is sent
 * (a crash in between leaves it uncertain, never re-sent). Such a tool IS registered as `provider_cancel`
 * with the observation above as its `inspect()`: that is a real account of what the server said, and it
 * answers `unknown` for everything it did not see — after a process restart, or when the server neither
 * confirms nor completes — which puts the call in front of a person (uncertain + review item) rather than
 * reporting a stop or a completion nobody saw. The annotations are hints from the server, not guarantees:
 * pass `commitsEffect` / `risk` to override them for a server you do not trust.
 *
 * Protocol revisions (the SDK 2.x client, `@modelcontextprotocol/client`):
 * - 2025-11-25 (`protocol: "2025-11-25"`, the default on stdio): Stop sends `notifications/cancelled`;
 * - 2026-07-28 (`protocol: "2026-07-28"`, or `"auto"` — the default over HTTP — against a server that offers it):
 *   on Streamable HTTP the cancellation IS closing the call's response stream; the server sends nothing back
 *   (recorded as `cancelKind: "stream_closed"`). Nothing after the close can be observed on that request, so
 *   such a call ends "cancellation sent but not confirmed" unless its answer arrived first;
 * - the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), when the server advertises it: a
 *   `tools/call` may be answered with a task handle (`resultType: "task"`). The adapter polls `tasks/get` until a
 *   terminal status; Stop sends `tasks/cancel`, which is an ACKNOWLEDGEMENT only — the task may still complete.
 *   inspect() re-queries `tasks/get` and reports what the server says: completed → committed (with its result,
 *   even after the cancel), cancelled/failed → not committed, working → running; "cancel sent, not confirmed"
 *   until a terminal status is observed.
 *
 * What this does NOT guarantee: that the server stopped (only its answer says so), that a cancelled call had
 * no effect on the server's side, or anything about a call made through another process's connection.
 *
 * The parts: this file opens the connection and lists the tools; mcp-tool.ts is one tool (run, cancel, inspect);
 * mcp-observation.ts records every message of a call; mcp-mapping.ts turns observations and annotations into the
 * tool contract's terms; mcp-server-tasks.ts follows and cancels the tasks extension's tasks; mcp-inspect-via.ts asks
 * the server afterwards (a configured inspect).
 */

/** The tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Which revision the connection speaks: 2025-11-25 (initialize), 2026-07-28 (server/discover), or auto (probe, fall back). */
export type McpProtocol = "2025-11-25" | "2026-07-28" | "auto";

export type McpTransportOptions =
  | { stdio: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string; stderr?: "inherit" | "ignore" | "pipe" } }
  | { url: string; headers?: Record<string, string> };

export interface ConnectMcpToolsOptions {
  transport: McpTransportOptions;
  /** Stopline tool names are `${prefix}.${tool.name}`. */
  prefix: string;
  /** Overrides the annotation-derived risk (all tools, or per tool). */
  risk?: RiskLevel | ((tool: McpToolInfo) => RiskLevel);
  /** Overrides the annotation-derived commitsEffect (all tools, or per tool). */
  commitsEffect?: boolean | ((tool: McpToolInfo) => boolean);
  /** Only these tools of the server (by MCP name); default all. */
  tools?: string[];
  /** How long inspect() waits after a cancel for the server's answer before it reports "not confirmed" (default 2 s). */
  confirmGraceMs?: number;
  /** A call without an answer or progress for this long times out (the SDK then sends a cancel too). Default 10 min. */
  callTimeoutMs?: number;
  /** Observations kept in memory (oldest dropped first). Default 5,000. */
  maxObservations?: number;
  clientInfo?: { name: string; version: string };
  /** Default: "auto" over HTTP, "2025-11-25" over stdio (an auto probe on stdio spawns a second server process). */
  protocol?: McpProtocol;
  /**
   * How to ask the server afterwards what became of a call of this tool (per tool), when what was observed on the
   * connection does not say — a cancel the server did not confirm, or a call made before this process started:
   * a later `tools/call` of an inspect tool, or a `resources/read`, on the same server (see McpInspectVia).
   */
  inspectVia?: (tool: McpToolInfo) => McpInspectVia | undefined;
}

export interface McpToolSet {
  /** One ToolDefinition per server tool, ready for ToolRegistry.register(). */
  tools: ToolDefinition<McpCallInput, CallToolResult>[];
  /** What the server said about each of those tools (tools/list), in the same order. */
  infos: McpToolInfo[];
  server: { name: string; version: string } | undefined;
  /** The protocol era negotiated with the server ("legacy" = 2025-11-25 and earlier, "modern" = 2026-07-28). */
  era: "legacy" | "modern" | undefined;
  /** Whether the server advertises the tasks extension. */
  tasks: boolean;
  /** What was observed of the call of this work item (undefined if this process has no record of it). */
  observation(workItemId: string): Readonly<McpCallObservation> | undefined;
  /** Progress notifications of the call of this work item, as they arrive (the MCP gateway forwards them). */
  onProgress(workItemId: string, listener: (progress: McpProgress) => void): () => void;
  /** The server's stderr when `stdio.stderr` is "pipe". */
  stderr: Stream | null;
  /** What the server offers besides tools (resources, prompts, completions, logging): the gateway relays those. */
  capabilities: Record<string, unknown>;
  /** A request to the server as it is (the gateway's relay of resources/*, prompts/*, completion/complete, logging/setLevel). */
  request(method: string, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolSet> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ConnectMcpToolsOptions;
  const o = { confirmGraceMs: 2_000, callTimeoutMs: 10 * 60_000, maxObservations: 5_000, ...given };
  const observer = new CallObserver(o.maxObservations);

  let inner: Transport;
  let stderr: Stream | null = null;
  let label: string;
  if ("stdio" in o.transport) {
    const s = o.transport.stdio;
    const stdio = new StdioClientTransport({ command: s.command, args: s.args, env: s.env, cwd: s.cwd, stderr: s.stderr ?? "inherit" });
    stderr = stdio.stderr;
    inner = stdio;
    label = `stdio:${[s.command, ...(s.args ?? [])].join(" ")}`;
  } else {
    inner = new StreamableHTTPClientTransport(new URL(o.transport.url), { requestInit: { headers: o.transport.headers } });
    label = o.transport.url;
  }
  const transport = new ObservingTransport(inner, observer);
  const protocol = o.protocol ?? ("stdio" in o.transport ? "2025-11-25" : "auto");
  const client = new Client(o.clientInfo ?? { name: "stopline", version: "0.1.0" }, {
    versionNegotiation: { mode: protocol === "2025-11-25" ? "legacy" : protocol === "auto" ? "auto" : { pin: protocol } },
    capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  } as ConstructorParameters<typeof Client>[1]);
  client.onerror = () => {}; // late answers and progress for cancelled calls land here; the observer already saw them
  await client.connect(transport);
  const era = client.getProtocolEra();
  observer.era = era ?? null;
  const tasksSupported = !!(client.getServerCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[TASKS_EXTENSION];
  const tasks = new McpServerTasks(client);
  const listed: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const wanted = o.tools ? listed.filter((t) => o.tools!.includes(t.name)) : listed;
  if (o.tools) {
    const missing = o.tools.filter((name) => !listed.some((t) => t.name === name));
    if (missing.length) {
      await client.close();
      throw new Error(`the MCP server ${label} has no tool ${missing.map((m) => `"${m}"`).join(", ")}`);
    }
  }
  const server = client.getServerVersion();

  const connection = { client, observer, tasks, serverName: server?.name ?? label };
  const tools = wanted.map((info) => mcpTool(info, connection, o));

  return {
    tools,
    infos: wanted.map(({ name, title, description, annotations, inputSchema }) => ({ name, title, description, annotations, inputSchema })),
    server,
    era,
    tasks: tasksSupported,
    observation: (workItemId) => {
      const call = observer.byWorkItem.get(workItemId);
      if (!call) return undefined;
      const { controller: _controller, cancelSending: _sending, ...seen } = call;
      return structuredClone(seen);
    },
    onProgress: (workItemId, listener) => observer.onProgress(workItemId, listener),
    stderr,
    capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
    request: (method, params) =>
      client.request({ method, ...(params ? { params } : {}) } as never, z.object({}).loose() as never, { timeout: 30_000 } as never) as Promise<
        Record<string, unknown>
      >,
    close: () => client.close(),
  };
}
