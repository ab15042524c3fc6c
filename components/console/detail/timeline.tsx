"use client";

import { toolLabel } from "@/components/chat/labels";
import { outcomeBadge } from "@/components/outcome-words";
import type { ChildOutcome, Tone } from "@/lib/outcomes";
import { fullTime } from "../format";
import type { TaskDetail } from "./types";

/** A bar's colour by the outcome's tone (the label says it too: colour is never the only signal). */
const BAR: Record<Tone, string> = { ok: "bg-ok", danger: "bg-danger", warn: "bg-warn", neutral: "bg-muted", accent: "bg-accent/60" };

const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

function duration(msValue: number) {
  if (msValue < 1000) return `${Math.max(0, Math.round(msValue))} ms`;
  if (msValue < 60_000) return `${(msValue / 1000).toFixed(1)} s`;
  return `${Math.floor(msValue / 60_000)} min ${Math.round((msValue % 60_000) / 1000)} s`;
}

/**
 * One bar per child, from when it was scheduled (faint: waiting) and started (solid) to when it settled —
 * or to now while it has not. The Stop boundary is a vertical line across every row.
 */
export function Timeline({ task, now, outcomes }: { task: TaskDetail; now: number; outcomes: Map<string, ChildOutcome> }) {
  const items = [...task.workItems].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  const stopAt = ms(task.cancelRequestedAt);
  const start = Math.min(Date.parse(task.createdAt), ...items.map((w) => Date.parse(w.createdAt)));
  const ends = items.map((w) => ms(w.finishedAt) ?? now);
  const end = Math.max(start + 1000, stopAt ?? 0, ...ends);
  const span = end - start;
  const pct = (t: number) => `${(((t - start) / span) * 100).toFixed(3)}%`;
  const width = (a: number, b: number) => `${Math.max(0.6, ((b - a) / span) * 100).toFixed(3)}%`;

  if (!items.length) {
    return <p className="py-6 text-center text-sm text-muted">No children were scheduled for this task.</p>;
  }

  return (
    <figure aria-labelledby="timeline-caption">
      <figcaption id="timeline-caption" className="sr-only">
        Timeline of {items.length} children{stopAt ? `; Stop was pressed at ${fullTime(task.cancelRequestedAt!)}` : ""}.
      </figcaption>
      <div className="relative">
        <ol className="space-y-1.5">
          {items.map((w) => {
            const badge = outcomeBadge(outcomes.get(w.id)!);
            const look = { label: badge.label, bar: BAR[badge.tone] };
            const created = Date.parse(w.createdAt);
            const started = ms(w.startedAt);
            const finished = ms(w.finishedAt);
            const stop = finished ?? now;
            return (
              <li
                key={w.id}
                data-testid="timeline-row"
                data-status={w.status}
                data-outcome={outcomes.get(w.id)?.kind}
                className="grid grid-cols-[9rem_1fr] items-center gap-3"
              >
                <span className="truncate text-xs text-ink" title={`${w.toolName}: ${look.label}`}>
                  {toolLabel(w.toolName)}
                </span>
                <div className="relative h-6 rounded bg-canvas">
                  {/* waiting in the queue */}
                  <span
                    aria-hidden="true"
                    className="absolute inset-y-2 rounded-sm bg-line"
                    style={{ left: pct(created), width: width(created, started ?? stop) }}
                  />
                  {started !== null && (
                    <span
                      aria-hidden="true"
                      className={`absolute inset-y-1 rounded-sm ${look.bar} ${finished === null ? "opacity-80" : ""}`}
                      style={{ left: pct(started), width: width(started, stop) }}
                      title={`${w.toolName}: ${look.label}`}
                    />
                  )}
                  {finished === null && w.progress && (
                    <span data-testid="timeline-progress" className="absolute inset-y-0 right-1.5 flex items-center font-mono text-[11px] text-ink">
                      {progressLabel(w.progress)}
                    </span>
                  )}
                  <span className="sr-only">
                    {toolLabel(w.toolName)}: {look.label}; started {w.startedAt ? fullTime(w.startedAt) : "never"};{" "}
                    {w.finishedAt ? `settled ${fullTime(w.finishedAt)} after ${duration(finished! - (started ?? created))}` : "not settled yet"}.
                  </span>
                </div>
              </li>
            );
          })}
        </ol>
        {stopAt !== null && (
          <div aria-hidden="true" data-testid="stop-line" className="pointer-events-none absolute inset-y-[-0.5rem] left-[9.75rem] right-0">
            <div className="absolute inset-y-0 w-0.5 -translate-x-1/2 bg-stop" style={{ left: pct(stopAt) }}>
              <span
                className={`absolute -top-5 rounded bg-stop px-1.5 text-[11px] font-semibold whitespace-nowrap text-white ${(stopAt - start) / span > 0.85 ? "right-1" : "left-1"}`}
              >
                Stop
              </span>
            </div>
          </div>
        )}
      </div>
      <div className="mt-3 flex flex-wrap justify-between gap-2 text-xs text-muted">
        <span>{fullTime(new Date(start).toISOString())}</span>
        <span>{duration(span)} shown</span>
      </div>
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted" aria-label="Legend">
        {[
          ["bg-line", "waiting"],
          ["bg-accent/60", "running"],
          ["bg-ok", "completed"],
          ["bg-muted", "stopped"],
          ["bg-warn", "unknown or took effect"],
          ["bg-danger", "could not stop, or failed"],
        ].map(([c, l]) => (
          <li key={l} className="inline-flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block h-2.5 w-4 rounded-sm ${c}`} />
            {l}
          </li>
        ))}
        <li className="inline-flex items-center gap-1.5">
          <span aria-hidden="true" className="inline-block h-3 w-0.5 bg-stop" />
          Stop boundary
        </li>
      </ul>
    </figure>
  );
}

/** "1,200 / 3,000 rows" — what the running code last reported, on its bar. */
function progressLabel(p: { done: number; total?: number; unit?: string }): string {
  const n = (x: number) => x.toLocaleString("en");
  return `${n(p.done)}${p.total !== undefined ? ` / ${n(p.total)}` : ""}${p.unit ? ` ${p.unit}` : ""}`;
}
