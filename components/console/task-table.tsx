import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { OUTCOME_WORDS, TASK_STANDING_WORDS, type OutcomeKind, type Tone } from "@/lib/outcomes";
import { deadlineWords } from "@/lib/review/deadline-words";
import { Urgency, urgencyOf } from "@/lib/review/triage";
import type { TaskRow } from "./api";
import { dateTime, fullTime } from "./format";

/**
 * The task list as a table: one row per task, in the order the console chose ("needs me first" or newest).
 * Each row says what an operator triages on — the task's standing (a Stop with effects is not a clean Stop; a
 * Stop still being worked out is "stopping", never settled), the owner, the effects, what waits for a decision
 * and by when, started and stopped with dates. Each row opens its task through a real link on the title; the
 * link's ::after covers the whole row, so a click anywhere on it follows the same link. Below 48rem the rows
 * become stacked cards (no sideways scrolling on a phone).
 */
export function TaskTable({ tasks, highlighted, now }: { tasks: TaskRow[]; highlighted: ReadonlySet<string>; now: number }) {
  const today = new Date(now);
  return (
    <table className="w-full text-left text-sm">
      <caption className="sr-only">Tasks</caption>
      <thead className="hidden border-b border-line bg-canvas/60 text-xs font-medium whitespace-nowrap text-muted md:table-header-group">
        <tr>
          <th scope="col" className="px-5 py-2.5 font-medium">
            Task
          </th>
          <th scope="col" className="px-3 py-2.5 font-medium">
            Outcome
          </th>
          <th scope="col" className="px-3 py-2.5 font-medium">
            Owner
          </th>
          <th scope="col" className="px-3 py-2.5 text-right font-medium">
            Effects
          </th>
          <th scope="col" className="px-3 py-2.5 font-medium">
            Awaiting decision
          </th>
          <th scope="col" className="px-5 py-2.5 font-medium">
            Started · stopped
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-line">
        {tasks.map((task) => {
          const urgency = urgencyOf({ ...task }, now);
          const standing = TASK_STANDING_WORDS[task.standing];
          return (
            <tr
              key={task.id}
              data-task-id={task.id}
              data-urgency={urgency}
              data-changed={highlighted.has(task.id) || undefined}
              className={cx(
                "relative grid grid-cols-1 gap-1.5 px-4 py-3 align-top transition-colors duration-700 md:table-row md:p-0",
                highlighted.has(task.id) ? "bg-warn-soft/60" : "hover:bg-canvas/60",
              )}
            >
              <th scope="row" className="min-w-0 font-normal md:max-w-sm md:px-5 md:py-3">
                <Link
                  href={`/console/tasks/${encodeURIComponent(task.id)}`}
                  data-testid="task-link"
                  className={cx(
                    "line-clamp-2 font-medium break-words text-ink hover:text-accent-strong hover:underline focus-visible:outline-none",
                    "after:absolute after:inset-0 after:content-[''] focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-accent",
                  )}
                  title={task.title}
                >
                  {task.title}
                </Link>
                <span className="mt-0.5 block truncate font-mono text-xs text-muted">
                  {task.id}
                  {task.conversationId && <span className="font-sans"> · conversation {task.conversationId}</span>}
                </span>
                {task.tools.length > 0 && <span className="block truncate text-xs text-muted">{task.tools.join(", ")}</span>}
              </th>
              <td className="md:px-3 md:py-3" data-testid="outcomes">
                <Badge tone={standing.tone} data-testid="standing" data-standing={task.standing} title={standing.sentence}>
                  {standing.short}
                </Badge>
                <OutcomeChips outcomes={task.outcomes} />
              </td>
              <td className="min-w-0 text-ink md:px-3 md:py-3" data-testid="owner">
                <span className="text-xs text-muted md:hidden">Owner </span>
                {/* One line in the narrow column (issue 20 item 7): cut with "…", the whole address on hover; the text itself stays whole for screen readers and search. */}
                <span
                  data-testid="owner-name"
                  title={task.ownerEmail ?? task.ownerId}
                  className="[overflow-wrap:anywhere] md:block md:max-w-52 md:truncate md:[overflow-wrap:normal]"
                >
                  {task.ownerEmail ?? task.ownerId}
                </span>
              </td>
              <td className="tabular-nums text-ink md:px-3 md:py-3 md:text-right" data-testid="effects">
                <EffectsCell effects={task.effects} />
              </td>
              <td className="md:px-3 md:py-3" data-testid="awaiting">
                {task.awaitingDecision > 0 && task.nextDeadline ? (
                  <>
                    <span className="font-medium text-ink">{task.awaitingDecision} awaiting decision</span>
                    <time
                      dateTime={task.nextDeadline}
                      title={fullTime(task.nextDeadline)}
                      className={cx(
                        "block text-xs",
                        urgency === Urgency.overdue ? "font-medium text-danger" : urgency === Urgency.dueSoon ? "text-warn" : "text-muted",
                      )}
                    >
                      {deadlineWords(task.nextDeadline, now)}
                    </time>
                  </>
                ) : (
                  <span className="text-xs text-muted">nothing awaiting</span>
                )}
              </td>
              <td className="text-xs text-muted md:px-5 md:py-3">
                <span className="block whitespace-nowrap">
                  started{" "}
                  <time dateTime={task.createdAt} title={fullTime(task.createdAt)} className="text-ink">
                    {dateTime(task.createdAt, today)}
                  </time>
                </span>
                {task.cancelRequestedAt ? (
                  <span className="block">
                    <span className="whitespace-nowrap">
                      stopped{" "}
                      <time dateTime={task.cancelRequestedAt} title={fullTime(task.cancelRequestedAt)} className="text-ink">
                        {dateTime(task.cancelRequestedAt, today)}
                      </time>
                    </span>
                    {task.cancelRequestedBy && <span className="block">by {task.cancelRequestedBy}</span>}
                    {task.cancelReason && (
                      <span className="block max-w-64 truncate text-ink" title={task.cancelReason}>
                        “{task.cancelReason}”
                      </span>
                    )}
                  </span>
                ) : task.endedAt ? (
                  <span className="block whitespace-nowrap">
                    ended{" "}
                    <time dateTime={task.endedAt} title={fullTime(task.endedAt)} className="text-ink">
                      {dateTime(task.endedAt, today)}
                    </time>
                  </span>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function EffectsCell({ effects }: { effects: TaskRow["effects"] }) {
  if (!effects.committed && !effects.unknown) return <span className="text-xs text-muted">no effects</span>;
  return (
    <span className="text-xs">
      {effects.committed > 0 && <span className="block font-medium text-ink">{effects.committed} took effect</span>}
      {effects.unknown > 0 && (
        <span className="block text-warn">
          {effects.unknown} {effects.unknown === 1 ? "outcome" : "outcomes"} not yet known
        </span>
      )}
    </span>
  );
}

const SEVERITY: Record<Tone, number> = { danger: 0, warn: 1, accent: 2, ok: 3, neutral: 4 };

/** The row's children by outcome (the one vocabulary's badge words), most serious first; at most three shown. */
function OutcomeChips({ outcomes }: { outcomes: { kind: OutcomeKind; count: number }[] }) {
  if (!outcomes.length) return <span className="mt-1 block text-xs text-muted">no steps</span>;
  const sorted = [...outcomes].sort((a, b) => SEVERITY[OUTCOME_WORDS[a.kind].tone] - SEVERITY[OUTCOME_WORDS[b.kind].tone]);
  const shown = sorted.slice(0, 3);
  return (
    <ul className="mt-1 flex max-w-72 flex-wrap gap-x-2 gap-y-0.5 text-xs text-muted" aria-label="What its steps did">
      {shown.map((o) => (
        <li key={o.kind} data-outcome={o.kind}>
          {o.count > 1 && <span className="tabular-nums">{o.count} × </span>}
          {OUTCOME_WORDS[o.kind].short}
        </li>
      ))}
      {sorted.length > shown.length && <li>and {sorted.slice(3).reduce((n, o) => n + o.count, 0)} more</li>}
    </ul>
  );
}
