import { utcFormat, type WordsFormat } from "../outcomes/words";
import type { TranscriptTurn } from "../transcript/transcript";
import type { Intent } from "./understand";

type About = Extract<Intent, { type: "question" }>["about"];
const SUBJECT: Record<NonNullable<About>, RegExp> = { order: /order/, export: /export/, email: /mail/, record: /record/ };

/**
 * The demo agent's answer to "did my order go through?": the latest earlier turn that ran a step about the subject,
 * and what each of its steps did — in the words the model reads as their tool results (toolResultText), which are
 * the ledger's. It says nothing the history does not: a step whose outcome is not known yet is answered so.
 */
export function answerFromHistory(turns: TranscriptTurn[], about: About, f: WordsFormat = utcFormat): string {
  const matches = (toolName: string) => (about ? SUBJECT[about].test(toolName) : true);
  const turn = [...turns].reverse().find((t) => t.toolCalls.some((c) => matches(c.toolName)));
  if (!turn)
    return about
      ? `I find no earlier request in this conversation that ran a step about ${about === "email" ? "an email" : `a ${about}`}.`
      : "I find no earlier request in this conversation that ran a step.";
  const calls = turn.toolCalls.filter((c) => matches(c.toolName));
  const shown = about ? calls : calls.some((c) => c.touchedByStop) ? calls.filter((c) => c.touchedByStop) : calls;
  const s = [`About “${turn.userText}”${turn.stop ? ` (you pressed Stop at ${f.time(turn.stop.requestedAt)})` : ""}:`];
  for (const c of shown) s.push(`${c.toolName} — ${c.text}.`);
  if (turn.stop && !turn.stop.settled) s.push("Stopline is still finding out what each step did; ask me again in a moment.");
  return s.join(" ");
}
