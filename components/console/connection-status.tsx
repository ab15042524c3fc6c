import { cx } from "@/components/ui/cx";
import type { LiveState } from "./use-ledger-events";

const LOOK: Record<LiveState, { dot: string; label: string; hint: string }> = {
  live: { dot: "bg-ok", label: "Live", hint: "Changes in the ledger appear here as they happen." },
  connecting: { dot: "bg-muted/50", label: "Connecting…", hint: "Opening the live event stream." },
  reconnecting: {
    dot: "bg-warn animate-pulse",
    label: "Reconnecting…",
    hint: "The live event stream dropped; it resumes from the last event it saw. The list may be behind until then.",
  },
};

/** The state of the SSE connection, in words (the dot is decoration). */
export function ConnectionStatus({ state }: { state: LiveState }) {
  const look = LOOK[state];
  return (
    <p
      role="status"
      title={look.hint}
      data-state={state}
      className={cx(
        "inline-flex items-center gap-2 rounded-full border px-2.5 py-1 text-xs font-medium",
        state === "reconnecting" ? "border-transparent bg-warn-soft text-warn" : "border-line bg-surface text-muted",
      )}
    >
      <span aria-hidden="true" className={cx("size-2 rounded-full", look.dot)} />
      {look.label}
      <span className="sr-only">{look.hint}</span>
    </p>
  );
}
