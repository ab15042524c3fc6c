import { utcFormat, type WordsFormat } from "../outcomes/words";
import type { DecisionResponse } from "../sdk/client-types";

/**
 * What a person is told about decisions, one function per question (table-tested in decision-words.test.ts).
 */

/** What a person found out about an uncertain outcome, when resolving it. */
export const Finding = {
  tookEffect: "took_effect",
  didNotTakeEffect: "did_not_take_effect",
  cannotTell: "cannot_tell",
} as const;
export type Finding = (typeof Finding)[keyof typeof Finding];
export const FINDINGS = Object.values(Finding) as Finding[];

export const FINDING_WORDS: Record<Finding, { choice: string; hint: string }> = {
  took_effect: { choice: "It took effect", hint: "the service did it (an order placed, a record written)" },
  did_not_take_effect: { choice: "It did not take effect", hint: "the service has no trace of it" },
  cannot_tell: { choice: "Cannot tell", hint: "nobody can establish it; it stays reported as unknown" },
};

const STATUS_VERB: Record<string, string> = { approved: "approved", rejected: "rejected", resolved: "resolved", escalated: "escalated" };

/** A person's name from an actor ("person:otto@…", "admin:ops"), without the role prefix. */
export const actorName = (actor: string | null) => (actor ? actor.slice(actor.indexOf(":") + 1) : "someone");

/**
 * The losing side of two simultaneous decisions: who decided, when, what — never an id.
 * "Otto Operator already rejected this at 14:05 UTC (“keep the record”). Your decision was not recorded."
 */
export function alreadyDecidedSentence(
  item: { status: string; decidedBy: string | null; decidedAt: Date | null; resolution: string | null },
  f: WordsFormat = utcFormat,
): string {
  const who = item.decidedBy?.startsWith("system:") ? "Stopline" : actorName(item.decidedBy);
  const when = item.decidedAt ? ` at ${f.time(item.decidedAt.getTime())}` : "";
  const why = item.resolution ? ` (“${item.resolution.length > 160 ? `${item.resolution.slice(0, 159)}…` : item.resolution}”)` : "";
  return `${who} already ${STATUS_VERB[item.status] ?? item.status} this${when}${why}. Your decision was not recorded.`;
}

/** What approving a compensation got, in one sentence (the console's answer to the approver). */
export function compensationAnswerSentence(answer: NonNullable<DecisionResponse["compensation"]>): string {
  const detail = answer.detail.replace(/\.$/, "");
  switch (answer.status) {
    case "compensated":
      return `Compensation executed: ${detail}.`;
    case "conflict":
      return `Not compensated — the record changed: ${detail}.`;
    case "failed":
      return `The service refused the compensation: ${detail}. The item is escalated.`;
    case "unknown":
      return `No answer from the service — the compensation may or may not have taken effect: ${detail}. The item is escalated.`;
  }
}
