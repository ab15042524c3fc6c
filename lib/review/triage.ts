import { TaskStanding } from "../outcomes/task-standing";

/**
 * "Needs me first": how urgently a task wants an operator, for the console's task list. Pure (the clock comes in).
 *
 *   overdue   — a review item about it is past its deadline (it has escalated or is about to);
 *   due soon  — a review item's deadline falls within DUE_SOON_MS;
 *   uncertain — something about it is not known yet: a Stop still being worked out, a step that could not be
 *               stopped, an outcome nobody has confirmed, or a decision still waiting (not yet due soon);
 *   rest      — nothing waits for a person.
 *
 * Within a band: the earliest deadline first, then the newest task.
 */
export const Urgency = { overdue: "overdue", dueSoon: "due_soon", uncertain: "uncertain", rest: "rest" } as const;
export type Urgency = (typeof Urgency)[keyof typeof Urgency];

export const URGENCY_RANK: Record<Urgency, number> = { overdue: 0, due_soon: 1, uncertain: 2, rest: 3 };

export const URGENCY_WORDS: Record<Urgency, string> = {
  overdue: "Overdue",
  due_soon: "Due soon",
  uncertain: "Uncertain",
  rest: "Nothing waiting",
};

/** An open review item whose deadline is this close counts as "due soon". */
export const DUE_SOON_MS = 60 * 60_000;

export interface TriageFacts {
  standing: TaskStanding;
  /** Open (or escalated) review items about the task. */
  awaitingDecision: number;
  /** The earliest deadline among them (ISO), or null. */
  nextDeadline: string | null;
  /** Children whose outcome is not known yet (outcome unknown). */
  uncertainSteps: number;
  createdAt: string;
}

export function urgencyOf(task: TriageFacts, now: number): Urgency {
  if (task.nextDeadline !== null) {
    const due = Date.parse(task.nextDeadline);
    if (due <= now) return Urgency.overdue;
    if (due - now <= DUE_SOON_MS) return Urgency.dueSoon;
  }
  if (task.awaitingDecision > 0 || task.uncertainSteps > 0 || task.standing === TaskStanding.stopping || task.standing === TaskStanding.stopFailed) {
    return Urgency.uncertain;
  }
  return Urgency.rest;
}

/** Sorts a copy: the band, then the earliest deadline, then the newest task. */
export function sortNeedsMeFirst<T extends TriageFacts>(tasks: readonly T[], now: number): T[] {
  const keyed = tasks.map((t) => ({
    t,
    rank: URGENCY_RANK[urgencyOf(t, now)],
    due: t.nextDeadline ? Date.parse(t.nextDeadline) : Infinity,
    created: Date.parse(t.createdAt),
  }));
  keyed.sort((a, b) => a.rank - b.rank || a.due - b.due || b.created - a.created);
  return keyed.map((k) => k.t);
}
