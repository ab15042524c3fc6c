import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { z } from "zod";
import { TaskSchema } from "./mcp-mapping";
import type { OpenCall } from "./mcp-observation";

/**
 * The MCP tasks extension (SEP-2663) from the client's side — the SDK has no runtime for it: a `tools/call` answered
 * with a task handle is followed through `tasks/get` until a terminal status, and stopped with `tasks/cancel`, which
 * the server only ACKNOWLEDGES (the task may still complete; inspect() asks again). Every answer is recorded on the
 * call's observation.
 */
export class McpServerTasks {
  readonly #client: Client;
  constructor(client: Client) {
    this.#client = client;
  }

  /** Asks the server (tasks/get) for the call's task and records what it said. */
  async observe(call: OpenCall, signal?: AbortSignal) {
    const t = (await this.#client.request(
      { method: "tasks/get", params: { taskId: call.task!.taskId } } as never,
      TaskSchema as never,
      { signal, timeout: 10_000 } as never,
    )) as z.infer<typeof TaskSchema>;
    call.task = {
      ...call.task!,
      status: t.status,
      statusMessage: t.statusMessage,
      pollIntervalMs: t.pollIntervalMs ?? call.task!.pollIntervalMs,
      observedAt: Date.now(),
      result: t.result as CallToolResult | undefined,
      error: t.error,
    };
    return call.task;
  }

  /** Polls a task until it is terminal; on abort sends tasks/cancel (an acknowledgement only) and stops waiting. */
  async follow(call: OpenCall, signal: AbortSignal): Promise<CallToolResult> {
    for (;;) {
      const t = await this.observe(call).catch((error: unknown) => {
        throw new Error(`tasks/get for task ${call.task!.taskId} failed: ${(error as Error).message}`);
      });
      if (t.status === "completed") {
        call.answer = {
          at: Date.now(),
          afterCancel: call.cancelSentAt !== null,
          kind: "result",
          result: t.result ?? { content: [] },
          isError: t.result?.isError === true,
        };
        return t.result ?? { content: [] };
      }
      if (t.status === "failed" || t.status === "cancelled") {
        const error = (t.error ?? {}) as { code?: number; message?: string };
        call.answer = {
          at: Date.now(),
          afterCancel: call.cancelSentAt !== null,
          kind: "error",
          error: { code: error.code ?? -32603, message: error.message ?? `task ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}` },
        };
        throw new Error(`the server's task ${t.taskId} ended ${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(Math.max(t.pollIntervalMs ?? 500, 50), 5_000));
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
        signal.addEventListener("abort", done, { once: true });
      });
      if (signal.aborted) {
        await this.cancel(call);
        throw signal.reason;
      }
    }
  }

  /** Sends tasks/cancel once per call; a failure to send is recorded (cancelSendError), not thrown. */
  async cancel(call: OpenCall) {
    if (!call.task || call.task.cancelAckAt !== null || call.cancelSentAt !== null) return;
    call.cancelSentAt = Date.now();
    call.cancelKind = "tasks_cancel";
    try {
      await this.#client.request(
        { method: "tasks/cancel", params: { taskId: call.task.taskId } } as never,
        z.object({}).loose() as never,
        { timeout: 10_000 } as never,
      );
      call.task.cancelAckAt = Date.now();
    } catch (error) {
      call.cancelSendError = `tasks/cancel failed: ${(error as Error).message}`;
    }
  }
}
