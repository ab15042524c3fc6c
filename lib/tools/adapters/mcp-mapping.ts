import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { z } from "zod";
import { RiskLevel } from "../../ledger/states";
import type { CallRef, InspectOutcome } from "../contract";
import type { McpCallObservation } from "./mcp-observation";

/**
 * How the MCP adapter maps between MCP and Stopline: a server tool's annotations → its contract, a call's
 * observation (mcp-observation.ts) → the outcome inspect() reports, and inspect templates filled with a call's ref.
 */

/** What the adapter knows about a server's tool when it decides its contract. */
export type McpToolInfo = Pick<Tool, "name" | "title" | "description" | "annotations" | "inputSchema">;

/** The annotation-derived contract (before overrides): read-only → preparation; otherwise an effect. */
export function contractFromAnnotations(tool: McpToolInfo): { commitsEffect: boolean; risk: RiskLevel } {
  const a = tool.annotations ?? {};
  if (a.readOnlyHint === true) return { commitsEffect: false, risk: RiskLevel.low };
  // The specification's defaults: not read-only, destructive unless it says otherwise.
  return { commitsEffect: true, risk: a.destructiveHint === false ? RiskLevel.low : RiskLevel.high };
}

/** Stopline tool names allow letters, digits and . _ : - (lib/tools/registry.ts). */
export const toolName = (prefix: string, name: string) => `${prefix}.${name.replace(/[^\w.:-]/g, "_")}`;

/** The table in the header, as code: what the observation of one call allows Stopline to say. */
export function outcomeOf(call: McpCallObservation, graceMs: number, now = Date.now()): InspectOutcome {
  if (call.answer?.kind === "result" && !call.answer.isError) {
    return {
      status: "committed",
      result: call.answer.result,
      description: `${call.tool} answered with a result${call.answer.afterCancel ? " after the cancellation was sent" : ""}`,
    };
  }
  if (call.answer) return { status: "not_committed" };
  if (call.notSent !== null) return { status: "not_committed" };
  if (call.connectionClosedAt !== null) {
    return {
      status: "unknown",
      reason: `the connection closed before the server answered${call.cancelSentAt !== null ? " (cancellation sent but not confirmed)" : ""}`,
    };
  }
  if (call.cancelSentAt === null) return { status: "running" };
  const progressing = call.progressAfterCancel > 0 && call.lastProgress !== null && now - call.lastProgress.at < graceMs;
  if (progressing) return { status: "running" };
  const sent = new Date(call.cancelSentAt).toISOString();
  if (call.cancelKind === "stream_closed") {
    return {
      status: "unknown",
      reason: `cancellation sent but not confirmed: the call's response stream was closed at ${sent} (2026-07-28: closing the stream is the cancellation; the server sends nothing back)`,
    };
  }
  const after =
    call.progressAfterCancel > 0
      ? `; progress continued ${call.progressAfterCancel} time(s) after the cancel (last at ${new Date(call.lastProgress!.at).toISOString()}: ${call.lastProgress!.progress}${call.lastProgress!.total !== undefined ? `/${call.lastProgress!.total}` : ""}), then stopped without a result`
      : "; no progress since";
  return {
    status: "unknown",
    reason: `cancellation sent but not confirmed: notifications/cancelled went out at ${sent} and the server has not answered the request${after}`,
  };
}

/** What a task's last observed status allows Stopline to say (tasks extension). */
export function taskOutcome(call: McpCallObservation): InspectOutcome {
  const t = call.task!;
  const after = call.cancelSentAt !== null ? " after tasks/cancel was acknowledged" : "";
  if (t.status === "completed") {
    if (t.result?.isError) return { status: "not_committed" };
    return { status: "committed", result: t.result, description: `task ${t.taskId} completed${after}` };
  }
  if (t.status === "cancelled" || t.status === "failed") return { status: "not_committed" };
  if (call.cancelSentAt === null) return { status: "running" };
  return {
    status: "unknown",
    reason: `cancel sent, not confirmed: tasks/cancel was acknowledged${t.cancelAckAt ? ` at ${new Date(t.cancelAckAt).toISOString()}` : ""} but task ${t.taskId} is still "${t.status}"${t.statusMessage ? ` (${t.statusMessage})` : ""} at ${new Date(t.observedAt).toISOString()}`,
  };
}

export const TaskSchema = z
  .object({
    taskId: z.string(),
    status: z.string(),
    statusMessage: z.string().optional(),
    pollIntervalMs: z.number().optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .loose();

export const textOf = (result: CallToolResult) =>
  (result.content ?? [])
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join(" ")
    .slice(0, 500) || "(no text)";

/** `{idempotencyKey}`, `{toolCallId}`, `{workItemId}`, `{arguments.<name>}` in a configured inspect, filled in. */
export function fillTemplate(text: string, ref: CallRef): string {
  return text.replace(/\{(idempotencyKey|toolCallId|workItemId|arguments\.([\w-]+))\}/g, (_m, key: string, arg?: string) => {
    if (arg !== undefined) {
      const value = (ref.input as Record<string, unknown> | null | undefined)?.[arg];
      return value === undefined || value === null ? "" : String(value);
    }
    return String(ref[key as "idempotencyKey" | "toolCallId" | "workItemId"]);
  });
}

export function fillValues(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === "string") return fill(value);
  if (Array.isArray(value)) return value.map((v) => fillValues(v, fill));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValues(v, fill)]));
  return value;
}
