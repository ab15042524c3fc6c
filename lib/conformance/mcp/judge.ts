/**
 * The MCP cancellation conformance pack's vocabulary and its one judging rule (pure).
 *
 * Each race puts one call of a server's tool in one position relative to a cancellation, then compares what the
 * server TOLD the client (its answer, a task's status, or silence) with what the server DID — as a witness shows it:
 * a declared inspect tool or resource of the server (the effect by idempotency key), the server's own progress
 * notifications, or a task's status — never the pack's guess. Silence is never taken for a stop.
 */
export const McpRace = {
  /** The client's signal fires before the request leaves: nothing may reach the server. */
  beforeSend: "cancel_before_send",
  /** The cancel once the server has the call (first progress, inspect says running, or still no answer after a while). */
  midCall: "cancel_mid_call",
  /** The cancel after the result arrived: the result must stand, the server must carry on. */
  afterResult: "cancel_after_result",
  /** The call's HTTP response stream dropped (no notifications/cancelled): a cancel on 2026-07-28, NOT one on 2025-11-25. */
  streamClosed: "stream_closed",
  /** Tasks (extension io.modelcontextprotocol/tasks, or 2025-11-25's tasks): tasks/cancel of a working task. */
  tasksCancel: "tasks_cancel",
} as const;
export type McpRace = (typeof McpRace)[keyof typeof McpRace];
export const MCP_RACES = Object.values(McpRace);

export const RACE_TITLES: Record<McpRace, string> = {
  cancel_before_send: "cancel before the call reaches the server",
  cancel_mid_call: "cancel mid-call",
  cancel_after_result: "cancel after the result",
  stream_closed: "response stream closed",
  tasks_cancel: "tasks/cancel",
};

export const McpVerdict = {
  /** The server did what the cancellation asks (stopped; or, after the result, kept the result) and said nothing false. */
  honours: "honours",
  /** The server carried on and did not claim otherwise (the spec lets a server ignore a cancellation). */
  ignores: "ignores",
  /** What the server told the client contradicts what its witness shows. Fails the pack. */
  lies: "LIES",
  /** Only the client's side is known: the server exposes no witness for this call. */
  unverified: "unverified",
  /** The race's position was never reached (e.g. the answer came before the cancel could be sent). */
  notReached: "not reached",
  /** The race does not apply (stdio has no stream; no tasks; the revision is not offered). */
  notApplicable: "n/a",
} as const;
export type McpVerdict = (typeof McpVerdict)[keyof typeof McpVerdict];

/** What the client was told. */
export type Told =
  | { kind: "silence" }
  | { kind: "result"; text: string }
  | { kind: "cancelled"; text: string } // an error, an isError result or a task status that says cancelled/stopped/aborted
  | { kind: "error"; text: string }
  | { kind: "nothing_sent" };

/** What the server did, by a witness (`how` says which). */
export type Did = { kind: "effect" | "none" | "running" | "unknown"; how: string };

export const toldText = (t: Told): string =>
  t.kind === "silence"
    ? "no answer"
    : t.kind === "nothing_sent"
      ? "nothing was sent"
      : `${t.kind === "result" ? "a result" : t.kind === "cancelled" ? '"cancelled"' : "an error"}: ${t.text.slice(0, 80)}`;

/** Text that claims the call was stopped. */
export const CANCEL_WORDS = /cancel|abort|stopped|interrupted/i;

/**
 * One race's verdict. A lie: the client was told "cancelled" (or an error) while the witness shows the effect, or
 * told a result while the witness shows none. Otherwise: stopped → honours; carried on → ignores (after the result,
 * carrying on is the honoured behaviour); nobody could say → unverified.
 */
export function judgeRace(race: McpRace, told: Told, did: Did, revision: string): { verdict: McpVerdict; finding: string } {
  const says = toldText(told);
  if ((told.kind === "cancelled" || told.kind === "error") && (did.kind === "effect" || did.kind === "running")) {
    return { verdict: McpVerdict.lies, finding: `told the client ${says} — but ${did.how}` };
  }
  if (told.kind === "result" && did.kind === "none") return { verdict: McpVerdict.lies, finding: `told the client ${says} — but ${did.how}` };
  if (race === McpRace.afterResult) {
    if (did.kind === "effect") return { verdict: McpVerdict.honours, finding: `the result stands after the late cancel (${did.how})` };
    return { verdict: McpVerdict.unverified, finding: `${says}; ${did.how}` };
  }
  if (did.kind === "none") {
    const note = race === McpRace.streamClosed && revision === "2025-11-25" ? " (2025-11-25 says a dropped stream SHOULD NOT be taken for a cancel)" : "";
    return { verdict: McpVerdict.honours, finding: `stopped: ${did.how}; told ${says}${note}` };
  }
  if (did.kind === "effect" || did.kind === "running") {
    const note = race === McpRace.streamClosed && revision === "2025-11-25" ? " — as 2025-11-25 asks: a dropped stream is not a cancel" : "";
    return { verdict: McpVerdict.ignores, finding: `carried on: ${did.how}; told ${says}${note}` };
  }
  return { verdict: McpVerdict.unverified, finding: `told ${says}; ${did.how}` };
}
