import type { StoplineClient, TaskDetail } from "./client";
import { toolCallTruths, type TaskRows, type ToolCallTruth } from "../transcript/tool-results";
import { utcFormat } from "../outcomes/words";

/**
 * Truthful tool results for the messages of a stopped turn (issue 25): after a Stop, the AI SDK leaves the aborted
 * step's tool calls without results (or a runtime strips them, or leaves "aborted"), so the next turn's model does not
 * know that the order WAS placed or that the export stopped at 1,425 rows — and orders again. `repairToolResults`
 * gives every tool call the Stop touched a result written from Stopline's ledger (through the HTTP API), in the
 * words the person's summary uses:
 *
 *   "cancelled before it started — it had no effect"
 *   "stopped; 1,425 rows kept (partial)"
 *   "took effect: order ord_123 (1 × lamp, €35.00) went through; a person decides by 17:09 UTC whether to reverse it"
 *   "outcome not yet known — Stopline is checking with the service until 17:09 UTC"
 *
 * It takes UI messages (`parts`, what `useChat` keeps) or model messages (`content`, what `streamText` takes) and returns
 * new ones of the same kind; call it before every turn that follows a stopped one — the ledger is read each time, so a
 * call that settles later (reconciliation, a late success, an operator's decision) is read settled.
 *
 * - a tool call of the task's ledger that the Stop touched: its result is replaced (or added) — state
 *   `output-available` with the text as `output` (UI), a `tool-result` with `{ type: "text" }` output (model);
 * - a touched call that the runtime stripped from the messages is added back (at the end of the last assistant message
 *   / after the last message), with its input as the ledger recorded it;
 * - a call of the messages that the ledger has no record of, still without a result, in a stopped task: "not started —
 *   Stopline has no record of it running" (the wrapped tools start every call in the ledger before `execute`);
 * - calls that completed before the Stop keep their own results; nothing else is changed.
 *
 * What it does NOT do: guess. While Stopline is still finding out (the Stop not settled), the text says so; pass
 * `waitMs` to wait for settlement first. A tool with `toModelOutput` is given the text as its output.
 */
export interface RepairOptions {
  client: StoplineClient;
  /** The task of the stopped turn (`StoplineTask.id`). */
  taskId: string;
  /** Wait up to this long for the Stop to settle before reading (default 0: read now; unsettled calls say so). */
  waitMs?: number;
  signal?: AbortSignal;
}

/** A UI message (ai 6 and 7 `UIMessage`) as far as this function reads it. */
export interface UiMessageLike {
  id: string;
  role: string;
  parts: Record<string, any>[];
  [key: string]: unknown;
}
/** A model message (ai 6 and 7 `ModelMessage`) as far as this function reads it. */
export interface ModelMessageLike {
  role: string;
  content: unknown;
  [key: string]: unknown;
}

export const NO_RECORD = "not started — Stopline has no record of it running";

export async function repairToolResults<M extends UiMessageLike | ModelMessageLike>(messages: M[], options: RepairOptions): Promise<M[]> {
  if (options.waitMs) {
    await options.client.waitForCancellation(options.taskId, { timeoutMs: options.waitMs, signal: options.signal }).catch(() => undefined);
  }
  const task = await options.client.getTask(options.taskId, { signal: options.signal });
  return repairWithTask(messages, task);
}

/** The same, from a task detail already read (`client.getTask`). */
export function repairWithTask<M extends UiMessageLike | ModelMessageLike>(messages: M[], task: TaskDetail, now = Date.now()): M[] {
  const stopped = task.cancelRequestedAt !== null;
  const truths = toolCallTruths(task as unknown as TaskRows, now, utcFormat).filter((t) => isToolCall(task, t));
  const byId = new Map(truths.map((t) => [t.toolCallId, t]));
  const isUi = messages.some((m) => Array.isArray((m as UiMessageLike).parts));
  return (isUi ? repairUi(messages as UiMessageLike[], byId, stopped) : repairModel(messages as ModelMessageLike[], byId, stopped)) as M[];
}

/** Tool calls only: the model's own generations (wrapModel's model_request children) are not tool calls. */
const isToolCall = (task: TaskDetail, t: ToolCallTruth) => task.workItems.find((w) => w.id === t.workItemId)?.kind !== "model_request";

function repairUi(messages: UiMessageLike[], byId: Map<string, ToolCallTruth>, stopped: boolean): UiMessageLike[] {
  const seen = new Set<string>();
  const out = messages.map((m) => {
    if (m.role !== "assistant") return m;
    return {
      ...m,
      parts: m.parts.map((part) => {
        const type = String(part.type ?? "");
        if (!(type.startsWith("tool-") || type === "dynamic-tool") || typeof part.toolCallId !== "string") return part;
        seen.add(part.toolCallId);
        const truth = byId.get(part.toolCallId);
        if (truth?.touchedByStop) return uiResult(part, truth.text, truth.input);
        if (!truth && stopped && part.state !== "output-available") return uiResult(part, NO_RECORD, part.input);
        return part;
      }),
    };
  });
  const missing = [...byId.values()].filter((t) => t.touchedByStop && !seen.has(t.toolCallId));
  if (!missing.length) return out;
  const added = missing.map((t) => ({ type: `tool-${t.toolName}`, toolCallId: t.toolCallId, state: "output-available", input: t.input ?? {}, output: t.text }));
  const last = out.map((m) => m.role).lastIndexOf("assistant");
  if (last < 0) return [...out, { id: `stopline-${missing[0].toolCallId}`, role: "assistant", parts: added }];
  return out.map((m, i) => (i === last ? { ...m, parts: [...m.parts, ...added] } : m));
}

function uiResult(part: Record<string, any>, text: string, input: unknown): Record<string, any> {
  const { errorText: _e, approval: _a, rawInput: _r, inputEncoding: _i, ...rest } = part;
  const complete = part.state !== "input-streaming" && part.input !== undefined;
  return { ...rest, state: "output-available", input: complete ? part.input : (input ?? {}), output: text };
}

type Part = Record<string, any>;

function repairModel(messages: ModelMessageLike[], byId: Map<string, ToolCallTruth>, stopped: boolean): ModelMessageLike[] {
  const parts = (m: ModelMessageLike): Part[] => (Array.isArray(m.content) ? (m.content as Part[]) : []);
  const calls = new Map<string, string>(); // toolCallId → toolName, as the messages name it
  const answered = new Set<string>();
  for (const m of messages) {
    for (const p of parts(m)) {
      if (m.role === "assistant" && p.type === "tool-call") calls.set(p.toolCallId, p.toolName);
      if (m.role === "tool" && p.type === "tool-result") answered.add(p.toolCallId);
    }
  }
  const textFor = (id: string, hasResult: boolean): string | null => {
    const truth = byId.get(id);
    if (truth?.touchedByStop) return truth.text;
    if (!truth && stopped && !hasResult && calls.has(id)) return NO_RECORD;
    return null;
  };
  const result = (toolCallId: string, toolName: string, value: string): Part => ({
    type: "tool-result",
    toolCallId,
    toolName,
    output: { type: "text", value },
  });

  const out: ModelMessageLike[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "tool") {
      out.push({
        ...m,
        content: parts(m).map((p) =>
          p.type === "tool-result" && textFor(p.toolCallId, true) !== null
            ? { ...result(p.toolCallId, p.toolName, textFor(p.toolCallId, true)!), ...(p.providerOptions ? { providerOptions: p.providerOptions } : {}) }
            : p,
        ),
      });
      continue;
    }
    out.push(m);
    if (m.role !== "assistant") continue;
    // calls of this message still without a result: their results go in the tool message that follows (or a new one)
    const open = parts(m).filter((p) => p.type === "tool-call" && !answered.has(p.toolCallId) && textFor(p.toolCallId, false) !== null);
    if (!open.length) continue;
    const results = open.map((p) => result(p.toolCallId, p.toolName, textFor(p.toolCallId, false)!));
    for (const p of open) answered.add(p.toolCallId);
    const next = messages[i + 1];
    if (next?.role === "tool") {
      out.push({
        ...next,
        content: [
          ...parts(next).map((p) =>
            p.type === "tool-result" && textFor(p.toolCallId, true) !== null ? result(p.toolCallId, p.toolName, textFor(p.toolCallId, true)!) : p,
          ),
          ...results,
        ],
      });
      i++;
    } else out.push({ role: "tool", content: results });
  }
  // touched calls the runtime stripped entirely: added back after the last message
  const missing = [...byId.values()].filter((t) => t.touchedByStop && !calls.has(t.toolCallId));
  if (missing.length) {
    out.push({ role: "assistant", content: missing.map((t) => ({ type: "tool-call", toolCallId: t.toolCallId, toolName: t.toolName, input: t.input ?? {} })) });
    out.push({ role: "tool", content: missing.map((t) => result(t.toolCallId, t.toolName, t.text)) });
  }
  return out;
}
