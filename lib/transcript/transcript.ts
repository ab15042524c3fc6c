import { WorkItemKind } from "../ledger/states";
import { utcFormat, type WordsFormat } from "../outcomes/words";
import { toolCallTruths, type TaskRows, type ToolCallTruth } from "./tool-results";

/**
 * The demo agent's conversation history as its model reads it (issue 25): each turn's message, the tool calls its
 * task made and — for every call a Stop touched — a tool result written from the ledger's facts (toolResultText),
 * never what the runtime happened to leave behind. It is derived from the ledger each time it is read, so a child
 * that settles later (reconciliation, a late success, an operator's decision) is read settled by the next turn.
 */
export interface TranscriptTurn {
  taskId: string;
  turnId: string | null;
  /** What the person wrote (the task's title: the message's first 200 characters). */
  userText: string;
  /** The tool calls of the turn (the reply itself is not one). */
  toolCalls: ToolCallTruth[];
  /** What the agent said: its headline and, when it was written in full, the rest. */
  reply: string | null;
  /** When the person pressed Stop on this turn (epoch ms), and whether Stopline has settled what each call did. */
  stop: { requestedAt: number; settled: boolean } | null;
}

export interface TurnRows extends TaskRows {
  id: string;
  turnId: string | null;
  title: string;
}

export function transcriptTurn(task: TurnRows, now: number, f: WordsFormat = utcFormat): TranscriptTurn {
  const truths = toolCallTruths(task, now, f);
  const replyItem = task.workItems.find((i) => i.kind === WorkItemKind.modelRequest);
  const replyTruth = truths.find((t) => t.workItemId === replyItem?.id);
  const headline = (replyItem?.input as { reply?: unknown } | null | undefined)?.reply;
  const rest = (replyItem?.result as { text?: unknown } | null | undefined)?.text;
  let reply: string | null = typeof headline === "string" ? headline : null;
  if (typeof rest === "string" && rest.trim() && replyItem?.status === "completed") reply = [reply, rest.trim()].filter(Boolean).join(" ");
  else if (replyTruth?.touchedByStop) reply = [reply, `(the rest of this reply: ${replyTruth.text})`].filter(Boolean).join(" ");
  const requestedAt = task.cancelRequestedAt ? new Date(task.cancelRequestedAt).getTime() : null;
  return {
    taskId: task.id,
    turnId: task.turnId,
    userText: task.title,
    toolCalls: truths.filter((t) => t.workItemId !== replyItem?.id),
    reply,
    stop: requestedAt === null ? null : { requestedAt, settled: task.settledAt != null },
  };
}

/** AI SDK model messages (the shape `ai` 6 and 7 share), with no import of `ai`. */
export type TranscriptMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: ({ type: "text"; text: string } | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown })[] }
  | { role: "tool"; content: { type: "tool-result"; toolCallId: string; toolName: string; output: { type: "text"; value: string } }[] };

/** A tool's name as model providers accept it (OpenAI: letters, digits, _ and -). */
export const modelToolName = (toolName: string) => toolName.replace(/[^a-zA-Z0-9_-]/g, "_");

/**
 * The turns as model messages: the person's message; the agent's tool calls; their results (the ledger's words for
 * every call the Stop touched, the returned value for work done before it); the Stop; the reply.
 */
export function toModelMessages(turns: TranscriptTurn[], f: WordsFormat = utcFormat): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (const turn of turns) {
    out.push({ role: "user", content: turn.userText });
    if (turn.toolCalls.length) {
      out.push({
        role: "assistant",
        content: turn.toolCalls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.toolCallId,
          toolName: modelToolName(c.toolName),
          input: c.input ?? {},
        })),
      });
      out.push({
        role: "tool",
        content: turn.toolCalls.map((c) => ({
          type: "tool-result" as const,
          toolCallId: c.toolCallId,
          toolName: modelToolName(c.toolName),
          output: { type: "text" as const, value: resultValue(c) },
        })),
      });
    }
    const said: string[] = [];
    if (turn.stop)
      said.push(
        `[The person pressed Stop at ${f.time(turn.stop.requestedAt)}.${turn.stop.settled ? "" : " Stopline is still finding out what each step did."}]`,
      );
    if (turn.reply) said.push(turn.reply);
    if (said.length) out.push({ role: "assistant", content: [{ type: "text", text: said.join(" ") }] });
  }
  return out;
}

function resultValue(c: ToolCallTruth): string {
  if (c.touchedByStop || c.result === null || c.result === undefined) return c.text;
  const json = JSON.stringify(c.result);
  return `${c.text}. Result: ${json.length > 2_000 ? `${json.slice(0, 2_000)}…` : json}`;
}
