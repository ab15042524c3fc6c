"use client";

import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { Card } from "@/components/ui/card";
import type { MetricsSchema } from "@/lib/api/schemas";
import { apiFetch, asSentence, isUnauthorized, type TaskList, type TaskRow } from "../api";
import { EmptyBlock, ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "../detail/states";
import type { ReviewItem } from "../detail/types";
import { stageLabel, STAGES } from "../task-stage";
import { dateTime } from "../format";
import { metricsLatencyCaption, metricsWindowSentence } from "@/lib/metrics/window-words";

type Metrics = z.output<typeof MetricsSchema>;
type Latency = Metrics["generation_cancellations"];

const STAGE_COLOUR: Record<string, string> = {
  active: "bg-accent/50",
  cancel_requested: "bg-stop/60",
  cancelled: "bg-muted",
  completed: "bg-ok",
  failed: "bg-danger",
};

async function fetchTasks(signal: AbortSignal): Promise<TaskRow[]> {
  const tasks: TaskRow[] = [];
  let before: string | null = null;
  for (let page = 0; page < 5; page++) {
    const params = new URLSearchParams({ limit: "100" });
    if (before) params.set("before", before);
    const list: TaskList = await apiFetch<TaskList>(`/api/tasks?${params}`, { signal });
    tasks.push(...list.tasks);
    if (!list.nextCursor) break;
    before = list.nextCursor;
  }
  return tasks;
}

/** Simple, honest charts from the ledger: every number is shown as a number too. */
export function MetricsDashboard() {
  const metrics = useQuery({
    queryKey: ["metrics"],
    queryFn: ({ signal }) => apiFetch<Metrics>("/api/metrics/cancellations", { signal }),
    refetchInterval: 15_000,
  });
  const tasks = useQuery({ queryKey: ["metrics-tasks"], queryFn: ({ signal }) => fetchTasks(signal), refetchInterval: 15_000 });
  const reviews = useQuery({
    queryKey: ["metrics-reviews"],
    queryFn: ({ signal }) => apiFetch<{ reviewItems: ReviewItem[] }>("/api/review-items", { signal }),
    refetchInterval: 15_000,
  });
  const all = [metrics, tasks, reviews];
  if (all.some((q) => isUnauthorized(q.error))) return <SessionEndedBlock />;

  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Metrics</h1>
        <p className="text-sm text-muted">From the ledger; refreshed every 15 seconds.</p>
      </div>
      <p aria-live="polite" className="sr-only">
        {all.every((q) => q.isSuccess) ? "Metrics loaded." : ""}
      </p>
      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-2">
        <Panel title="Outcomes over time" query={tasks} className="lg:col-span-2">
          {(data) => <OutcomesChart tasks={data} />}
        </Panel>
        <Panel title="Generation vs action cancellations" query={metrics}>
          {(m) => <CancellationKinds metrics={m} />}
        </Panel>
        <Panel title="Time from Stop to settled" query={metrics}>
          {(m) => <StopToSettled metrics={m} />}
        </Panel>
        <Panel title="Open review items by age" query={reviews} className="lg:col-span-2">
          {(r) => <ReviewAges items={r.reviewItems} />}
        </Panel>
      </div>
    </div>
  );
}

function Panel<T>({
  title,
  query,
  children,
  className,
}: {
  title: string;
  query: { data?: T; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  children: (data: T) => React.ReactNode;
  className?: string;
}) {
  const id = `m-${title.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <Card as="section" aria-labelledby={id} className={className}>
      <SectionTitle id={id}>{title}</SectionTitle>
      <div className="mt-4">
        {query.isPending ? (
          <LoadingBlock label="Loading…" />
        ) : query.data === undefined ? (
          <ErrorBlock title="Could not load" message={asSentence((query.error as Error)?.message ?? "unknown error")} onRetry={() => void query.refetch()} />
        ) : (
          children(query.data)
        )}
      </div>
    </Card>
  );
}

function OutcomesChart({ tasks }: { tasks: TaskRow[] }) {
  if (!tasks.length) return <EmptyBlock title="No tasks yet.">Outcomes appear here once agents create tasks.</EmptyBlock>;
  const times = tasks.map((t) => Date.parse(t.createdAt));
  const spanMs = Math.max(...times) - Math.min(...times);
  const hourly = spanMs < 2 * 86_400_000;
  const keyOf = (iso: string) => {
    const d = new Date(iso);
    return hourly ? `${d.getFullYear()}-${d.getMonth()}-${d.getDate()} ${d.getHours()}` : `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
  };
  const labelOf = (iso: string) => {
    const d = new Date(iso);
    return hourly ? `${String(d.getHours()).padStart(2, "0")}:00` : d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  };
  const buckets = new Map<string, { label: string; at: number; counts: Record<string, number>; total: number }>();
  for (const t of tasks) {
    const k = keyOf(t.createdAt);
    const b = buckets.get(k) ?? { label: labelOf(t.createdAt), at: Date.parse(t.createdAt), counts: {}, total: 0 };
    b.counts[t.stage] = (b.counts[t.stage] ?? 0) + 1;
    b.total++;
    b.at = Math.min(b.at, Date.parse(t.createdAt));
    buckets.set(k, b);
  }
  const rows = [...buckets.values()].sort((a, b) => a.at - b.at).slice(-24);
  const max = Math.max(...rows.map((r) => r.total));
  return (
    <div>
      <div
        className="flex h-48 items-end gap-1.5 border-b border-line"
        role="img"
        aria-label={`Tasks per ${hourly ? "hour" : "day"} by outcome; the table below has the numbers.`}
      >
        {rows.map((r) => (
          <div key={r.label + r.at} className="flex h-full max-w-20 min-w-6 flex-1 flex-col justify-end" title={`${r.label}: ${r.total} tasks`}>
            <span className="mb-0.5 text-center text-[11px] text-muted tabular-nums">{r.total}</span>
            <div className="flex flex-col-reverse overflow-hidden rounded-t-sm" style={{ height: `${(r.total / max) * 85}%` }}>
              {STAGES.map((s) => (r.counts[s] ? <div key={s} className={STAGE_COLOUR[s]} style={{ height: `${(r.counts[s] / r.total) * 100}%` }} /> : null))}
            </div>
          </div>
        ))}
      </div>
      <div className="mt-1 flex gap-1.5">
        {rows.map((r) => (
          <span key={r.label + r.at} className="max-w-20 min-w-6 flex-1 truncate text-center text-[11px] text-muted">
            {r.label}
          </span>
        ))}
      </div>
      <ul className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted" aria-label="Legend">
        {STAGES.map((s) => (
          <li key={s} className="inline-flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block size-2.5 rounded-sm ${STAGE_COLOUR[s]}`} />
            {stageLabel(s)} ({tasks.filter((t) => t.stage === s).length})
          </li>
        ))}
      </ul>
      <details className="mt-2 text-xs">
        <summary className="cursor-pointer text-muted">Numbers</summary>
        <table className="mt-1 w-full text-left">
          <thead className="text-muted">
            <tr>
              <th className="py-1 font-medium">{hourly ? "Hour" : "Day"}</th>
              {STAGES.map((s) => (
                <th key={s} className="py-1 text-right font-medium">
                  {stageLabel(s)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="tabular-nums">
            {rows.map((r) => (
              <tr key={r.label + r.at}>
                <td className="py-0.5">{r.label}</td>
                {STAGES.map((s) => (
                  <td key={s} className="py-0.5 text-right">
                    {r.counts[s] ?? 0}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

function CancellationKinds({ metrics }: { metrics: Metrics }) {
  const rows = [
    { label: "Generation (model requests stopped)", value: metrics.generation_cancellations.count, colour: "bg-accent" },
    { label: "Actions stopped", value: metrics.action_cancellations.stopped.count, colour: "bg-muted" },
    { label: "Actions reconciled or finished after Stop", value: metrics.action_cancellations.reconciled_or_finished.count, colour: "bg-warn" },
  ];
  const max = Math.max(1, ...rows.map((r) => r.value));
  if (rows.every((r) => r.value === 0)) {
    return (
      <EmptyBlock title={metrics.tasks.stopped ? "No child was still working when Stop was pressed." : "No cancellations yet."}>
        {metrics.tasks.stopped
          ? `${metrics.tasks.stopped} ${metrics.tasks.stopped === 1 ? "task was" : "tasks were"} stopped; every child had already ended, so nothing was cancelled.`
          : "Press Stop on a task to see them counted here."}
      </EmptyBlock>
    );
  }
  return (
    <div className="space-y-3">
      {rows.map((r) => (
        <HBar key={r.label} label={r.label} value={r.value} max={max} colour={r.colour} text={String(r.value)} />
      ))}
      <p className="text-xs text-muted" data-testid="metrics-window">
        {metricsWindowSentence(metrics, (iso) => dateTime(iso))}
      </p>
    </div>
  );
}

const fmt = (v: number | null) => (v === null ? "—" : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`);

function StopToSettled({ metrics }: { metrics: Metrics }) {
  const groups: [string, Latency][] = [
    ["Generation", metrics.generation_cancellations],
    ["Actions stopped", metrics.action_cancellations.stopped],
    ["Actions reconciled", metrics.action_cancellations.reconciled_or_finished],
  ];
  const max = Math.max(1, ...groups.flatMap(([, l]) => [l.max_ms ?? 0]));
  if (groups.every(([, l]) => l.count === 0)) return <EmptyBlock title="Nothing has settled after a Stop yet." />;
  return (
    <div className="space-y-4">
      {groups.map(([label, l]) => (
        <div key={label}>
          <p className="text-xs font-medium text-ink">
            {label}{" "}
            <span className="font-normal text-muted">
              ({l.count} {l.count === 1 ? "child" : "children"})
            </span>
          </p>
          <div className="mt-1 space-y-1">
            <HBar label="p50" value={l.p50_ms ?? 0} max={max} colour="bg-ok" text={fmt(l.p50_ms)} compact />
            <HBar label="p99" value={l.p99_ms ?? 0} max={max} colour="bg-warn" text={fmt(l.p99_ms)} compact />
            <HBar label="max" value={l.max_ms ?? 0} max={max} colour="bg-danger/70" text={fmt(l.max_ms)} compact />
          </div>
        </div>
      ))}
      <p className="text-xs text-muted">{metricsLatencyCaption(metrics.window)}</p>
    </div>
  );
}

const AGE_BUCKETS: [string, number][] = [
  ["under 15 min", 15 * 60_000],
  ["15–60 min", 60 * 60_000],
  ["1–4 h", 4 * 3_600_000],
  ["4–24 h", 86_400_000],
  ["over a day", Infinity],
];

function ReviewAges({ items }: { items: ReviewItem[] }) {
  const open = items.filter((i) => i.status === "open" || i.status === "escalated");
  if (!open.length) return <EmptyBlock title="No review item is open." />;
  const now = Date.now();
  const counts = AGE_BUCKETS.map(([label, limit], i) => {
    const lower = i === 0 ? 0 : AGE_BUCKETS[i - 1][1];
    const inBucket = open.filter((r) => {
      const age = now - Date.parse(r.createdAt);
      return age >= lower && age < limit;
    });
    return { label, total: inBucket.length, escalated: inBucket.filter((r) => r.status === "escalated").length };
  });
  const max = Math.max(1, ...counts.map((c) => c.total));
  return (
    <div className="space-y-2">
      {counts.map((c) => (
        <HBar
          key={c.label}
          label={c.label}
          value={c.total}
          max={max}
          colour={c.escalated ? "bg-danger/70" : "bg-warn"}
          text={`${c.total}${c.escalated ? ` (${c.escalated} escalated)` : ""}`}
        />
      ))}
    </div>
  );
}

function HBar({ label, value, max, colour, text, compact }: { label: string; value: number; max: number; colour: string; text: string; compact?: boolean }) {
  return (
    <div className={`grid items-center gap-3 text-xs ${compact ? "grid-cols-[3rem_1fr_5rem]" : "grid-cols-[minmax(8rem,14rem)_1fr_6rem]"}`}>
      <span className="text-muted">{label}</span>
      <span className="h-3 rounded-sm bg-canvas" aria-hidden="true">
        <span className={`block h-full rounded-sm ${colour}`} style={{ width: `${value > 0 ? Math.max(1.5, (value / max) * 100) : 0}%` }} />
      </span>
      <span className="text-right text-ink tabular-nums">{text}</span>
    </div>
  );
}
