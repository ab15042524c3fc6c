/**
 * What a page says while its data loads, when it could not load, when there is nothing to show and when the
 * session ended — the one place for those words (issue 12 §6). The states themselves are components/ui/states.tsx;
 * pages name what they show (a `StateSubject`) and never write their own "Loading…" or "could not be loaded".
 */

/** What a page or section shows, as the noun the state sentences use. */
export const STATE_SUBJECTS = {
  conversation: "the conversation",
  conversations: "your conversations",
  taskList: "the task list",
  task: "the task",
  taskHistory: "the history",
  reviewQueue: "the review queue",
  channels: "the channels",
  deliveryLog: "the delivery log",
  audit: "the audit",
} as const;
export type StateSubject = keyof typeof STATE_SUBJECTS;

export interface LoadWords {
  /** While the first answer is on its way (a live region reads it). */
  loading: string;
  /** The first answer failed: the heading of the error state. */
  failed: string;
  /** What follows the server's own message in the error state. */
  failedHint: string;
  /** A later refresh failed while older data is still shown. */
  stale: (message: string) => string;
}

/** The loading, failed and stale sentences of one subject. */
export function loadWords(subject: StateSubject): LoadWords {
  const noun = STATE_SUBJECTS[subject];
  return {
    loading: subject === "audit" ? "Searching the ledger…" : `Loading ${noun}…`,
    failed: subject === "audit" ? "The search was refused" : `Could not load ${noun}`,
    failedHint:
      subject === "conversation"
        ? "Whatever the agent was doing goes on at the server; try again to see where it stands."
        : subject === "audit"
          ? "Check the search fields and try again."
          : "Nothing on the server changed because of it; try again.",
    stale: (message) => `Could not refresh ${noun} (${message.replace(/[.!?]$/, "")}); showing what was loaded before.`,
  };
}

/** The sign-in ended while the page was open (the API answered 401): what it means, and the way back. */
export const SESSION_ENDED = {
  title: "Your session ended — sign in again",
  body: "The sign-in expired or was revoked. Nothing the agent was doing changed because of it, and nothing on this page was changed; sign in again to see where things stand.",
  action: "Sign in again",
} as const;

/** A page or section with nothing to show: its title and the sentence that says what would fill it. */
export const EMPTY_WORDS = {
  chatNew: {
    title: "Start a conversation with the demo agent",
    body: "It can export a report, order from the shop, or record a customer and email them. It asks before anything takes effect, and Stop (or Esc) ends whatever it is doing at any moment.",
  },
  chatReadOnly: {
    title: "Nothing in this conversation yet",
    body: "Open a conversation from the list to read what the agent did and what each Stop stopped. The audit in the console searches every conversation by person, task or tool.",
  },
  conversations: { title: "No conversations yet.", body: "" },
  taskList: {
    title: "No tasks yet",
    body: "A task appears here for each request a person sends in the chat or an agent starts on someone's behalf — as soon as it is recorded, no reload needed.",
  },
  taskListFiltered: { title: "No tasks match these filters.", body: "" },
  taskMissing: { title: "There is no task with this id.", body: "It may have been mistyped, or it belongs to someone else." },
  reviewQueue: { title: "Nothing waits for a decision.", body: "New items appear here as soon as a cancellation needs a person." },
  channels: { title: "No channel yet.", body: "Escalations are recorded, but nobody is alerted until you add a webhook or a Slack-compatible channel." },
  deliveryLogUndelivered: {
    title: "No channel has received an escalation yet.",
    body: "The items above escalated while no channel was active. A channel added now receives those still open, marked late.",
  },
  deliveryLog: {
    title: "Nothing has been escalated.",
    body: "An item appears here when its review deadline passes without a decision, or when a high-risk orphan is found.",
  },
  auditUnsearched: {
    title: "Search by user, conversation, task, tool or time.",
    body: "Open a task's audit from its page in the console, or type an id above.",
  },
  auditNoMatch: { title: "No task matches this search.", body: "Check the id, or widen the time window." },
} as const satisfies Record<string, { title: string; body: string }>;
export type EmptyKind = keyof typeof EMPTY_WORDS;

/** The delivery log's empty words: never "Nothing has been escalated." under a list of escalated items nobody received. */
export const deliveryLogEmptyKind = (undelivered: number): EmptyKind => (undelivered > 0 ? "deliveryLogUndelivered" : "deliveryLog");
