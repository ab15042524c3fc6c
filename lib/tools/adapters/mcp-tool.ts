import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import { Mechanism, type RiskLevel, WorkItemKind } from "../../ledger/states";
import { traceMeta } from "../../observability/tracing";
import { StoppedError, type ToolContext, type ToolDefinition } from "../contract";
import { askServer, canAskServer, type McpInspectVia } from "./mcp-inspect-via";
import { contractFromAnnotations, type McpToolInfo, outcomeOf, taskOutcome, textOf, toolName } from "./mcp-mapping";
import { CALL_META_KEY, type CallObserver } from "./mcp-observation";
import type { McpServerTasks } from "./mcp-server-tasks";

/** One connection to an MCP server, as its tools share it. */
export interface McpConnection {
  client: Client;
  observer: CallObserver;
  tasks: McpServerTasks;
  /** How the server is named in what people read: its name, or the command / URL. */
  serverName: string;
}

export type McpCallInput = Record<string, unknown> | undefined;

/** What connectMcpTools' options say about each tool (ConnectMcpToolsOptions, lib/tools/adapters/mcp.ts). */
export interface McpToolOptions {
  prefix: string;
  risk?: RiskLevel | ((tool: McpToolInfo) => RiskLevel);
  commitsEffect?: boolean | ((tool: McpToolInfo) => boolean);
  inspectVia?: (tool: McpToolInfo) => McpInspectVia | undefined;
  confirmGraceMs: number;
  callTimeoutMs: number;
}

/**
 * One MCP tool as a Stopline tool (`provider_cancel`): run() sends tools/call on the connection (checkpoint and
 * submission first when it may have effects), cancel() stops exactly that request the way its protocol revision says,
 * inspect() reports what the connection observed — or asks the server (McpInspectVia) when that does not say.
 */
export function mcpTool(info: Tool, connection: McpConnection, o: McpToolOptions): ToolDefinition<McpCallInput, CallToolResult> {
  const { client, observer, tasks } = connection;
  const derived = contractFromAnnotations(info);
  const commitsEffect = typeof o.commitsEffect === "function" ? o.commitsEffect(info) : (o.commitsEffect ?? derived.commitsEffect);
  const risk = typeof o.risk === "function" ? o.risk(info) : (o.risk ?? derived.risk);
  const name = toolName(o.prefix, info.name);
  const where = `${info.name} on ${connection.serverName}`;
  const via = o.inspectVia?.(info);

  return {
    name,
    kind: WorkItemKind.remoteTool,
    risk,
    commitsEffect,
    mechanism: Mechanism.providerCancel,
    ...(via?.resources?.length && canAskServer(via) ? { resources: via.resources } : {}),

    async run(input, ctx: ToolContext) {
      if (commitsEffect) await ctx.checkpoint();
      else if (ctx.signal.aborted) throw ctx.signal.reason;
      const call = observer.open(ctx.workItemId, info.name);
      // Recorded BEFORE the request leaves: a crash in between leaves the item uncertain (asked about,
      // never re-sent) instead of "never submitted" (which would run it again). A tool without effects has nothing
      // to reconcile: it is not recorded as submitted, and a Stop of it is a stop (below).
      if (commitsEffect) {
        try {
          await ctx.submitted(`mcp:${ctx.idempotencyKey}`, { providerRef: call.callId, description: `MCP ${where}` });
        } catch (error) {
          call.notSent = `the submission was not recorded: ${(error as Error).message}`;
          throw error;
        }
      }
      const keyArgument = via?.idempotencyKeyArgument;
      const args = keyArgument ? { ...(input ?? {}), [keyArgument]: ctx.idempotencyKey } : (input ?? {});
      if (ctx.signal.aborted) {
        call.notSent = "stopped before the request was sent";
        throw ctx.signal.reason;
      }
      // One controller per call: the run's signal (Stop, lost lease) or cancel() abort it; the SDK then sends
      // notifications/cancelled for exactly this request.
      const controller = observer.controllerOf(call);
      const stopOnRunSignal = () => controller.abort(ctx.signal.reason);
      ctx.signal.addEventListener("abort", stopOnRunSignal, { once: true });
      // The server's progress is the call's progress in the chat and the console (coalesced by the runner).
      const unsubscribeProgress = observer.onProgress(
        ctx.workItemId,
        (p) =>
          void ctx
            .reportProgress({ done: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) })
            .catch(() => {}),
      );
      try {
        let result: CallToolResult;
        try {
          result = (await client.callTool(
            { name: info.name, arguments: args, _meta: traceMeta({ [CALL_META_KEY]: call.callId }, ctx.traceparent) }, // + the call's traceparent
            {
              signal: controller.signal,
              timeout: o.callTimeoutMs,
              resetTimeoutOnProgress: true,
              onprogress: () => {}, // asks the server for progress; the observer records it (also after a cancel)
            },
          )) as CallToolResult;
        } catch (error) {
          // The SDK has no runtime for the tasks extension: it refuses a task handle as a tools/call result. The
          // observer read the handle off the wire; the call is then followed through tasks/get.
          if (!call.task || controller.signal.aborted) throw error;
          result = await tasks.follow(call, controller.signal);
        }
        if (result.isError) throw new Error(`${where} answered with an error: ${textOf(result)}`);
        return result;
      } catch (error) {
        if (call.sentAt === null && call.notSent === null) call.notSent = `the request could not be sent: ${(error as Error).message}`;
        if (ctx.signal.aborted && !commitsEffect) {
          // A call that changes nothing, told to stop the way its protocol revision says (notifications/cancelled,
          // the closed stream, tasks/cancel). An answer that still comes within the grace period is what happened
          // (a result: it completed); without one, whatever the server still does has no effect to confirm — stopped.
          await observer.cancelDelivered(call, 2_000);
          if (call.task) await tasks.cancel(call);
          if (call.sentAt !== null && call.cancelKind !== "stream_closed")
            await observer.waitForAnswer(call, (call.cancelSentAt ?? Date.now()) + o.confirmGraceMs);
          if (call.answer?.kind === "result" && !call.answer.isError) return call.answer.result;
          const how = call.answer
            ? "the server answered the cancelled request with an error"
            : call.cancelKind === "stream_closed"
              ? "its response stream was closed"
              : call.cancelKind === "tasks_cancel"
                ? "tasks/cancel was sent"
                : call.sentAt === null
                  ? "it was never sent"
                  : "notifications/cancelled was sent";
          throw new StoppedError(`${where} was stopped (${how}); it has no effect, so nothing is left to confirm`);
        }
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw error;
      } finally {
        ctx.signal.removeEventListener("abort", stopOnRunSignal);
        unsubscribeProgress();
      }
    },

    async cancel(ref) {
      const call = observer.find(ref);
      if (!call)
        throw new Error(
          `no call of work item ${ref.workItemId} is known on this process's connection to ${where}; an MCP cancellation can only travel on the connection that carried the request`,
        );
      if (call.notSent !== null || call.answer !== null) return; // nothing left to cancel
      if (call.connectionClosedAt !== null) throw new Error(`the connection to ${where} closed before it answered; the cancellation cannot be sent`);
      if (call.task) {
        observer.controllerOf(call).abort(new Error("Stopline: the task was stopped"));
        await tasks.cancel(call);
        if (call.cancelSendError) throw new Error(call.cancelSendError);
        return;
      }
      observer.controllerOf(call).abort(new Error("Stopline: the task was stopped"));
      await observer.cancelDelivered(call, 5_000);
      if (call.cancelSendError) throw new Error(`notifications/cancelled could not be sent: ${call.cancelSendError}`);
      if (call.cancelSentAt === null && call.answer === null) throw new Error("notifications/cancelled was not sent");
    },

    async inspect(ref) {
      const call = observer.find(ref);
      if (!call) {
        if (canAskServer(via)) return askServer(client, via, ref, where, "this process has no record of the call");
        return {
          status: "unknown",
          reason: `this process has no record of the call (MCP offers no way to ask ${where} about an earlier call; it can only be observed on the connection that carried it)`,
        };
      }
      if (call.task && call.answer === null) {
        // tasks/cancel was only acknowledged: ask again, until a terminal status or the grace period ends.
        const until = (call.cancelSentAt ?? Date.now()) + o.confirmGraceMs;
        for (;;) {
          try {
            const t = await tasks.observe(call);
            if (t.status === "completed" || t.status === "failed" || t.status === "cancelled") break;
          } catch (error) {
            return {
              status: "unknown",
              reason: `tasks/get for task ${call.task.taskId} failed: ${(error as Error).message}${call.cancelSentAt !== null ? " (cancel sent, not confirmed)" : ""}`,
            };
          }
          if (Date.now() >= until) break;
          await new Promise((r) => setTimeout(r, Math.min(call.task!.pollIntervalMs ?? 200, 500)));
        }
        return taskOutcome(call);
      }
      if (call.cancelSentAt !== null && call.answer === null && call.connectionClosedAt === null) {
        await observer.waitForAnswer(call, call.cancelSentAt + o.confirmGraceMs);
      }
      const observed = outcomeOf(call, o.confirmGraceMs);
      // What the connection showed does not say (a cancel not confirmed, a closed connection): ask the server.
      if (observed.status === "unknown" && canAskServer(via)) return askServer(client, via, ref, where, observed.reason);
      // Written ahead: what the server holds for the call is only the server's to say — asked even when the outcome was observed.
      if (via?.resources?.length && canAskServer(via)) {
        const asked = await askServer(client, via, ref, where, "what the server holds for the call");
        return asked.holds ? { ...observed, holds: asked.holds } : observed;
      }
      return observed;
    },

    describeEffect: (effect) => effect.description ?? `MCP ${where} (${effect.operationId})`,
  };
}
