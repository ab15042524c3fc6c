import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The gateway's one configuration file (`stopline.mcp.json`, or STOPLINE_MCP_CONFIG): the downstream MCP
 * servers and the stop contracts of their tools. A tool not listed gets its contract from its MCP annotations
 * (readOnlyHint → preparation; otherwise an effect, high risk unless destructiveHint is false) and is stopped
 * the only way MCP allows (provider_cancel: the cancellation its protocol revision defines), with an outcome
 * reported only as far as the server confirms it — "unknown" otherwise.
 */
const Inspect = z
  .strictObject({
    /** A tool of the same server that says what became of a call (its answer: an InspectOutcome as JSON). */
    tool: z.string().min(1).optional(),
    /** Or a resource URI of the same server to read (its text: an InspectOutcome as JSON; "not found" = not committed). */
    resource: z.string().min(1).optional(),
    /** The inspect tool's arguments; `{idempotencyKey}`, `{toolCallId}`, `{workItemId}`, `{arguments.<name>}` are filled in. */
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((i) => !!i.tool !== !!i.resource, { message: "inspect needs exactly one of tool or resource" });

const ToolContract = z.strictObject({
  /** `provider_cancel` (default: MCP's cancellation) or `none` (the call cannot be stopped: reported UNRECOVERABLE). */
  mechanism: z.enum(["provider_cancel", "none"]).optional(),
  commitsEffect: z.boolean().optional(),
  risk: z.enum(["low", "high"]).optional(),
  /**
   * How to confirm what a call did when the server does not answer a cancelled request (as the spec tells it not to):
   * a later tools/call of an inspect tool, or resources/read. Without it, an unconfirmed cancel of a tool with
   * effects goes to a person (uncertain + review item). The tasks extension needs nothing here (tasks/get).
   */
  inspect: Inspect.optional(),
  /** Every call of the tool sends its idempotency key in this argument, so that the inspect can find it. */
  idempotencyKeyArgument: z.string().min(1).optional(),
});

const Server = z
  .strictObject({
    stdio: z
      .strictObject({
        command: z.string().min(1),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
        cwd: z.string().optional(),
      })
      .optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** Default: auto over HTTP, 2025-11-25 over stdio. */
    protocol: z.enum(["2025-11-25", "2026-07-28", "auto"]).optional(),
    /** Clients see this server's tools as `${prefix}${name}` (default: no prefix). */
    prefix: z
      .string()
      .regex(/^[\w.:-]*$/)
      .optional(),
    /** Only these tools (default: all the server lists). */
    only: z.array(z.string()).optional(),
    tools: z.record(z.string(), ToolContract).optional(),
    /** How long inspect() waits after a cancel for the server's answer (default 2 s). */
    confirmGraceMs: z.number().int().min(0).max(60_000).optional(),
  })
  .refine((s) => !!s.stdio !== !!s.url, { message: "each server needs exactly one of stdio or url" });

export const GatewayConfigSchema = z.strictObject({
  servers: z.record(z.string().regex(/^[\w-]{1,64}$/, "server names are letters, digits, _ and -"), Server),
  /** A session's task is completed after this long without a call (default 30 min). */
  sessionIdleMs: z.number().int().min(1_000).optional(),
});
export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
export type DownstreamServerConfig = GatewayConfig["servers"][string];

/** Reads and validates the file; relative stdio `cwd`s are resolved against the file's folder. */
export function loadGatewayConfig(file: string): GatewayConfig {
  const raw = JSON.parse(readFileSync(file, "utf8"));
  const parsed = GatewayConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`).join("; ")}`);
  }
  const dir = path.dirname(path.resolve(file));
  for (const server of Object.values(parsed.data.servers)) if (server.stdio) server.stdio.cwd = path.resolve(dir, server.stdio.cwd ?? ".");
  return parsed.data;
}
