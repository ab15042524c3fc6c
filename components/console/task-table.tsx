import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { OUTCOME_WORDS, type OutcomeKind, type Tone } from "@/lib/outcomes";
import type { TaskRow } from "./api";
import { fullTime, shortTime } from "./format";
import { stageLabel, stageTone } from "./task-stage";

/**
 * The task list as a table: one row per task, newest first (the API's order). Each row opens its task
 * through a real link on the title (Tab, Enter, middle-click and "open in new tab" all work); the link's
 * ::after covers the whole row, so a click anywhere on it follows the same link.
 */
export function TaskTable({ tasks, highlighted }: { tasks: TaskRow[]; highlighted: ReadonlySet<string> }) {
  const now = new Date();
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[60rem] text-left text-sm">
        <caption className="sr-only">Tasks, newest first</caption>
        <thead className="border-b border-line bg-canvas/60 text-xs font-medium whitespace-nowrap text-muted">
          <tr>
            <th scope="col" className="px-5 py-2.5 font-medium">Task</th>
            <th scope="col" className="px-3 py-2.5 font-medium">Stage</th>
            <th scope="col" className="px-3 py-2.5 text-right font-medium">Intent</th>
            <th scope="col" className="px-3 py-2.5 text-right font-medium">Work items</th>
            <th scope="col" className="px-3 py-2.5 font-medium">What its steps did</th>
            <th scope="col" className="px-3 py-2.5 font-medium">Created</th>
            <th scope="col" className="px-5 py-2.5 font-medium">Stop requested</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {tasks.map((task) => (
            <tr
              key={task.id}
              data-task-id={task.id}
              data-changed={highlighted.has(task.id) || undefined}
              className={cx(
                "relative align-top transition-colors duration-700",
                highlighted.has(task.id) ? "bg-warn-soft/60" : "hover:bg-canvas/60",
              )}
            >
              <th scope="row" className="max-w-md px-5 py-3 font-normal">
                <Link
                  href={`/console/tasks/${encodeURIComponent(task.id)}`}
                  data-testid="task-link"
                  className={cx(
                    "line-clamp-2 font-medium text-ink hover:text-accent-strong hover:underline focus-visible:outline-none",
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
              </th>
              <td className="px-3 py-3">
                <Badge tone={stageTone(task.stage)} data-testid="stage">
                  {stageLabel(task.stage)}
                </Badge>
              </td>
              <td className="px-3 py-3 text-right text-ink tabular-nums">
                <span className="sr-only">intent version </span>v{task.intentVersion}
              </td>
              <td className="px-3 py-3 text-right tabular-nums text-ink">{task.workItemCount}</td>
              <td className="px-3 py-3" data-testid="outcomes">
                <OutcomeChips outcomes={task.outcomes} />
              </td>
              <td className="px-3 py-3 whitespace-nowrap text-muted">
                <time dateTime={task.createdAt} title={fullTime(task.createdAt)}>
                  {shortTime(task.createdAt, now)}
                </time>
              </td>
              <td className="px-5 py-3 text-muted">
                {task.cancelRequestedAt ? (
                  <>
                    <time dateTime={task.cancelRequestedAt} title={fullTime(task.cancelRequestedAt)} className="whitespace-nowrap text-ink">
                      {shortTime(task.cancelRequestedAt, now)}
                    </time>
                    {task.cancelReason && (
                      <span className="mt-0.5 block max-w-64 truncate text-xs text-ink" title={task.cancelReason}>
                        “{task.cancelReason}”
                      </span>
                    )}
                    {task.cancelRequestedBy && <span className="block text-xs">by {task.cancelRequestedBy}</span>}
                  </>
                ) : (
                  <>
                    <span aria-hidden="true">—</span>
                    <span className="sr-only">not requested</span>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const SEVERITY: Record<Tone, number> = { danger: 0, warn: 1, accent: 2, ok: 3, neutral: 4 };

/** The row's children by outcome (the one vocabulary's badge words), most serious first; at most three shown. */
function OutcomeChips({ outcomes }: { outcomes: { kind: OutcomeKind; count: number }[] }) {
  if (!outcomes.length) return <span className="text-muted">no steps</span>;
  const sorted = [...outcomes].sort((a, b) => SEVERITY[OUTCOME_WORDS[a.kind].tone] - SEVERITY[OUTCOME_WORDS[b.kind].tone]);
  const shown = sorted.slice(0, 3);
  return (
    <ul className="flex max-w-72 flex-wrap gap-1" aria-label="What its steps did">
      {shown.map((o) => (
        <li key={o.kind}>
          <Badge tone={OUTCOME_WORDS[o.kind].tone} data-outcome={o.kind}>
            {o.count > 1 && <span className="mr-1 tabular-nums">{o.count} ×</span>}
            {OUTCOME_WORDS[o.kind].short}
          </Badge>
        </li>
      ))}
      {sorted.length > shown.length && <li className="text-xs text-muted">and {sorted.slice(3).reduce((n, o) => n + o.count, 0)} more</li>}
    </ul>
  );
}
