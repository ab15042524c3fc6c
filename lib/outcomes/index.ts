/**
 * The outcome vocabulary: one pure function per question a person asks about a Stop, used by the summary JSON,
 * the chat, the console, the audit and its exports (docs/ARCHITECTURE.md, "One vocabulary").
 * - What became of this child?                 childOutcome (child-outcome.ts)
 * - What do we call it?                         describeOutcome, OUTCOME_WORDS (words.ts)
 * - Was this resource released?                 resourceOutcome (resource-outcome.ts)
 * - Is the Stop final, and how did it go?       summaryStatus (summary-status.ts)
 * - What do we tell the person who pressed Stop? userMessage (user-message.ts)
 * - What happened since the Stop settled?      verdictOutcome, sinceSettlement, sinceSentence (story.ts)
 * Pure: no database, no clock (times come in as facts), no server imports — pages use it too.
 */
export * from "./child-outcome";
export * from "./facts";
export * from "./resource-outcome";
export * from "./summary-status";
export * from "./user-message";
export * from "./words";
export * from "./stop-preview";
export * from "./task-standing";
export * from "./person-findings";
export * from "./tool-result-text";
export * from "./story";
export * from "./step-stop";
