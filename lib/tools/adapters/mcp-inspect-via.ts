import type { Client, CallToolResult } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { CallRef, InspectOutcome } from "../contract";
import { fillTemplate, fillValues, textOf } from "./mcp-mapping";

/**
 * A configured inspect (issue 23): what MCP offers to find out afterwards what a call did. `tool` — a tool of the
 * same server called with `arguments`; `resource` — a resource URI of the same server, read. In `arguments` (string
 * values) and in `resource`, `{idempotencyKey}`, `{toolCallId}`, `{workItemId}` and `{arguments.<name>}` are
 * replaced by the call's values. The answer — the tool's `structuredContent` (or its text as JSON), or the resource's
 * text as JSON — is an InspectOutcome: `{"status":"committed","externalRecordId":…}`, `{"status":"not_committed"}`,
 * `{"status":"running"}` or `{"status":"unknown","reason":…}`. A resource the server does not have (resource not
 * found) is `not_committed`. For the server to know the call by its idempotency key, name the argument that carries
 * it (`idempotencyKeyArgument`): every call of the tool then sends the key in it.
 */
export interface McpInspectVia {
  tool?: string;
  resource?: string;
  arguments?: Record<string, unknown>;
  idempotencyKeyArgument?: string;
  /**
   * Written ahead (lib/tools/contract.ts `resources`): the kinds of resource a call of the tool may hold at the server.
   * Recorded before the request leaves; the inspect answer then carries `"holds": [{"type":…,"handle":…}]` — what the
   * server holds for the call now — and the tool's inspect() always asks the server (an observation on the connection
   * does not say what the server holds).
   */
  resources?: readonly string[];
}

const holdsSchema = z
  .array(z.object({ type: z.string().min(1).max(100), handle: z.string().min(1).max(500) }))
  .max(100)
  .optional();
const InspectAnswerSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("committed"),
    externalRecordId: z.string().nullish(),
    externalVersion: z.string().nullish(),
    currentVersion: z.string().nullish(),
    description: z.string().optional(),
    result: z.unknown().optional(),
    holds: holdsSchema,
  }),
  z.object({ status: z.literal("not_committed"), holds: holdsSchema }),
  z.object({ status: z.literal("running"), holds: holdsSchema }),
  z.object({ status: z.literal("unknown"), reason: z.string(), holds: holdsSchema }),
]);

/** A configured inspect (McpInspectVia): a later tools/call of the inspect tool, or resources/read, on this server. */
export async function askServer(client: Client, via: McpInspectVia, ref: CallRef, where: string, observed: string): Promise<InspectOutcome> {
  const fill = (text: string) => fillTemplate(text, ref);
  const how = via.tool ? `tools/call ${via.tool}` : `resources/read ${fill(via.resource!)}`;
  try {
    let answer: unknown;
    if (via.tool) {
      const result = (await client.callTool(
        { name: via.tool, arguments: fillValues(via.arguments ?? {}, fill) as Record<string, unknown> },
        { timeout: 10_000 },
      )) as CallToolResult;
      if (result.isError) return { status: "unknown", reason: `${observed}; ${how} answered with an error: ${textOf(result)}` };
      answer = result.structuredContent ?? JSON.parse(textOf(result));
    } else {
      const read = await client.readResource({ uri: fill(via.resource!) }, { timeout: 10_000 });
      const first = read.contents[0] as { text?: string } | undefined;
      if (!first?.text) return { status: "unknown", reason: `${observed}; ${how} returned no text` };
      answer = JSON.parse(first.text);
    }
    const parsed = InspectAnswerSchema.safeParse(answer);
    if (!parsed.success)
      return { status: "unknown", reason: `${observed}; ${how} answered something that is not an outcome: ${JSON.stringify(answer).slice(0, 200)}` };
    return parsed.data as InspectOutcome;
  } catch (error) {
    const code = (error as { code?: number }).code;
    // The record does not exist on the server: the call never took effect there (resource not found).
    if (via.resource && (code === -32002 || code === -32602)) return { status: "not_committed", ...(via.resources?.length ? { holds: [] } : {}) };
    return { status: "unknown", reason: `${observed}; asking ${where} (${how}) failed: ${(error as Error).message}` };
  }
}

/** The tool can be asked about afterwards (a configured inspect tool or resource). */
export const canAskServer = (via: McpInspectVia | undefined): via is McpInspectVia => !!(via?.tool || via?.resource);
