import { ReviewItemKind } from "../ledger/states";

/**
 * Which decisions a review item offers, and what the queue's keys do on it — one pure function, so the buttons, the
 * keys and the "Enter: …" hint can never disagree (issue 20, item 6: `r` marked a held lock handled on an item that
 * shows no Reject; a conflict card hinted "Enter: approve" where approval is not offered).
 *
 * - a compensation: approve (bound to the version shown) and reject — but approval only once the record's state is
 *   known and it still has that version; after a conflict only "keep the record as it is" (reject) remains;
 * - an uncertain outcome: resolve (with what happened);
 * - an orphaned resource: retry the release (Stopline cleans up and checks) or close it without a verified release —
 *   which is never the main action, never on a key, and needs an explicit confirmation with evidence;
 * - an irreversible side effect: mark handled.
 */
export type Choice = "approve" | "reject" | "resolve" | "retry_release" | "close_unreleased";

export interface ChoiceFacts {
  kind: string;
  /** A compensation whose record changed since the agent's write (lib/review/conflict.ts). */
  conflict: boolean;
  /** The side effect's recorded state has been read (until then a compensation's version cannot be judged). */
  effectKnown: boolean;
}

export interface Choices {
  /** The buttons shown, in order. */
  offered: Choice[];
  /** What Enter in the reason field sends when no key chose otherwise. */
  primary: Choice;
  /** What each key chooses on this item; null: the key does nothing here (its button is not on the card). */
  keys: { a: Choice | null; r: Choice | null };
}

export function reviewChoices(f: ChoiceFacts): Choices {
  switch (f.kind) {
    case ReviewItemKind.approveCompensation: {
      if (f.conflict) return { offered: ["reject"], primary: "reject", keys: { a: "reject", r: "reject" } };
      if (!f.effectKnown) return { offered: ["reject"], primary: "reject", keys: { a: null, r: "reject" } };
      return { offered: ["approve", "reject"], primary: "approve", keys: { a: "approve", r: "reject" } };
    }
    case ReviewItemKind.resolveUncertain:
      return { offered: ["resolve"], primary: "resolve", keys: { a: "resolve", r: null } };
    case ReviewItemKind.orphanedResource:
      return { offered: ["retry_release", "close_unreleased"], primary: "retry_release", keys: { a: "retry_release", r: null } };
    default:
      return { offered: ["resolve"], primary: "resolve", keys: { a: "resolve", r: null } };
  }
}

/** A choice a key or an earlier press made, kept only while the card still offers it; else the card's main one. */
export const effectiveChoice = (choices: Choices, chosen: Choice | null): Choice => (chosen && choices.offered.includes(chosen) ? chosen : choices.primary);

/** The button (and hint) words of each choice. */
export function choiceLabel(choice: Choice, ctx: { conflict: boolean; expectedVersion: string | null; kind: string }): string {
  switch (choice) {
    case "approve":
      return `Approve (version ${ctx.expectedVersion ?? "—"})`;
    case "reject":
      return ctx.conflict ? "Keep the record as it is (reject)" : "Reject";
    case "retry_release":
      return "Retry release";
    case "close_unreleased":
      return "Close without a verified release";
    case "resolve":
      return ctx.kind === ReviewItemKind.resolveUncertain ? "Resolve" : "Mark handled";
  }
}

/** The hint under the reason field: what Enter does here. Retrying a release needs no reason, so Enter sends nothing then. */
export function enterHint(choice: Choice, ctx: { conflict: boolean; expectedVersion: string | null; kind: string }): string {
  if (choice === "retry_release") return "Enter: retry release · Shift+Enter: new line";
  return `Enter: ${choiceLabel(choice, ctx).toLowerCase()} · Shift+Enter: new line`;
}
