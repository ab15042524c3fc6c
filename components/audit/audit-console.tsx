"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { z } from "zod";
import { Badge } from "@/components/ui/badge";
import { Button, buttonStyles } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Detail, Details } from "@/components/ui/details";
import { toolLabel } from "@/components/chat/labels";
import { inReaderZone } from "@/lib/outcomes/time";
import { apiFetch, isUnauthorized } from "@/components/console/api";
import { SinceStop } from "@/components/since-stop";
import { SectionTitle } from "@/components/console/detail/states";
import { EmptyState, ErrorState, LoadingState, SessionEnded } from "@/components/ui/states";
import { effectLabel, effectTone } from "@/components/console/detail/types";
import { fullTime, shortTime } from "@/components/console/format";
import { taskStageLabel, taskStageTone } from "@/components/console/task-stage";
import { refusalOf, refusalSentence } from "@/lib/outcomes/task-standing";
import type { AuditReportSchema } from "@/lib/api/schemas";
import { AUDIT_FIELDS, type AuditFields } from "./fields";

type Report = z.output<typeof AuditReportSchema>;

const LABELS: Record<(typeof AUDIT_FIELDS)[number], { label: string; placeholder: string; type?: string }> = {
  user: { label: "User", placeholder: "e-mail or user id, e.g. user@stopline.local" },
  conversationId: { label: "Conversation", placeholder: "conversation id" },
  taskId: { label: "Task", placeholder: "task id" },
  tool: { label: "Tool", placeholder: "e.g. shop.place_order" },
  from: { label: "From", placeholder: "", type: "datetime-local" },
  to: { label: "To", placeholder: "", type: "datetime-local" },
};

/** datetime-local ⇄ ISO: the form shows local time; the API takes ISO with an offset. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : "");
const toLocal = (iso?: string) => {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

function queryString(filter: AuditFields, format?: "csv" | "json") {
  const p = new URLSearchParams();
  for (const k of AUDIT_FIELDS) if (filter[k]) p.set(k, filter[k]!);
  if (format) p.set("format", format);
  return p.toString();
}

/** The audit for support staff: search, "what the agent actually changed", and exports. Read-only. */
export function AuditConsole({ initial }: { initial: AuditFields }) {
  const router = useRouter();
  const [filter, setFilter] = useState<AuditFields>(initial);
  const [draft, setDraft] = useState<AuditFields>({ ...initial, from: toLocal(initial.from), to: toLocal(initial.to) });
  const searched = AUDIT_FIELDS.some((k) => filter[k]);
  const query = useQuery({
    queryKey: ["audit", filter],
    queryFn: ({ signal }) => apiFetch<Report>(`/api/audit?${queryString(filter)}`, { signal }),
    enabled: searched,
    retry: false,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: AuditFields = {};
    for (const k of AUDIT_FIELDS) {
      const v = draft[k]?.trim();
      if (v) next[k] = k === "from" || k === "to" ? toIso(v) : v;
    }
    setFilter(next);
    router.replace(`/audit${Object.keys(next).length ? `?${queryString(next)}` : ""}`, { scroll: false });
  };
  const report = query.data;

  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Audit</h1>
        <p className="text-sm text-muted">
          What the agent actually changed: every external effect with its evidence, every compensation, everything still uncertain.
        </p>
      </div>

      <Card as="section" aria-labelledby="search-title">
        <h2 id="search-title" className="sr-only">
          Search
        </h2>
        <form onSubmit={submit} role="search" className="grid grid-cols-[minmax(0,1fr)] gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {AUDIT_FIELDS.map((k) => (
            <div key={k}>
              <label htmlFor={`audit-${k}`} className="block text-xs font-medium text-ink">
                {LABELS[k].label}
              </label>
              <Input
                id={`audit-${k}`}
                name={k}
                type={LABELS[k].type ?? "text"}
                placeholder={LABELS[k].placeholder}
                value={draft[k] ?? ""}
                onChange={(e) => setDraft((d) => ({ ...d, [k]: e.target.value }))}
                className="mt-1 w-full"
              />
            </div>
          ))}
          <div className="flex flex-wrap items-center gap-2 sm:col-span-2 lg:col-span-3">
            <Button type="submit">Search</Button>
            <Button
              variant="ghost"
              onClick={() => {
                setDraft({});
                setFilter({});
                router.replace("/audit", { scroll: false });
              }}
            >
              Clear
            </Button>
            {report && (
              <span className="ml-auto flex gap-2">
                <a
                  href={`/api/audit?${queryString(filter, "csv")}`}
                  download
                  className={buttonStyles({ variant: "secondary", size: "sm" })}
                  data-testid="export-csv"
                >
                  Export CSV
                </a>
                <a
                  href={`/api/audit?${queryString(filter, "json")}`}
                  download
                  className={buttonStyles({ variant: "secondary", size: "sm" })}
                  data-testid="export-json"
                >
                  Export JSON
                </a>
              </span>
            )}
          </div>
        </form>
      </Card>

      <p aria-live="polite" aria-atomic="true" className="min-h-5 text-sm text-muted" data-testid="announcer">
        {query.isFetching ? "Searching…" : report ? summaryLine(report) : ""}
      </p>

      {!searched ? (
        <EmptyState kind="auditUnsearched" />
      ) : isUnauthorized(query.error) ? (
        <SessionEnded />
      ) : query.isPending ? (
        <LoadingState subject="audit" />
      ) : query.isError ? (
        <ErrorState subject="audit" error={query.error} />
      ) : report && report.tasks.length === 0 && report.archived.length === 0 ? (
        <EmptyState kind="auditNoMatch" />
      ) : report ? (
        <ReportView report={report} />
      ) : null}
    </div>
  );
}

/** A task's owner: a person by e-mail (their id on hover), an agent's own owner id as it is. */
function Owner({ email, id }: { email: string | null; id: string }) {
  return email ? (
    <span className="text-ink" title={`user id ${id}`}>
      {email}
    </span>
  ) : (
    <span className="font-mono">{id}</span>
  );
}

function summaryLine(r: Report) {
  const n = (x: number, one: string, many: string) => `${x} ${x === 1 ? one : many}`;
  const archived = r.archived.reduce((sum, a) => sum + a.taskCount, 0);
  return `${n(r.tasks.length, "task", "tasks")}, ${n(r.effects.length, "external effect", "external effects")}, ${n(r.compensations.length, "compensation", "compensations")}, ${n(r.uncertain.length, "item still uncertain", "items still uncertain")}${archived ? `; ${n(archived, "older task", "older tasks")} archived` : ""}.`;
}

/**
 * History that left the ledger under the retention policy (lib/retention): one line per archive file, in the words
 * lib/audit archivedHistoryLine wrote — when it was archived, and where the audit export of it is.
 */
function ArchivedHistory({ archived }: { archived: Report["archived"] }) {
  return (
    <Card as="section" aria-labelledby="archived-title" data-testid="audit-archived">
      <SectionTitle id="archived-title" count={archived.length}>
        Older history, archived
      </SectionTitle>
      <ul className="mt-2 space-y-1 text-sm">
        {archived.map((a) => (
          <li key={a.archivePath} className="text-ink [overflow-wrap:anywhere]" data-testid="audit-archived-line">
            {a.line}
          </li>
        ))}
      </ul>
      <p className="mt-2 text-xs text-muted">
        These tasks are no longer in the ledger. Their full record — steps, effects, decisions and events — is in that archive file on the server, readable by
        its operators only.
      </p>
    </Card>
  );
}

function ReportView({ report }: { report: Report }) {
  const titles = new Map(report.tasks.map((t) => [t.id, t.title]));
  if (report.tasks.length === 0) return <ArchivedHistory archived={report.archived} />;
  return (
    <div className="space-y-4">
      {report.archived.length > 0 && <ArchivedHistory archived={report.archived} />}
      <Card as="section" aria-labelledby="tasks-title">
        <SectionTitle id="tasks-title" count={report.tasks.length}>
          Tasks, and what each step did
        </SectionTitle>
        <ul className="mt-2 divide-y divide-line text-sm">
          {report.tasks.map((t) => (
            <li key={t.id} className="py-2" data-testid="audit-task" data-task-id={t.id}>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <Badge tone={taskStageTone(t)}>{taskStageLabel(t)}</Badge>
                <Link href={`/audit?taskId=${encodeURIComponent(t.id)}`} className="min-w-0 flex-1 truncate text-accent hover:underline">
                  {t.title}
                </Link>
                <span className="text-xs text-muted">
                  user <Owner email={t.ownerEmail} id={t.ownerId} /> · {shortTime(t.createdAt)}
                  {t.cancelRequestedAt && (
                    <>
                      {" "}
                      · Stop {shortTime(t.cancelRequestedAt)}
                      {t.cancelRequestedBy && <> by {t.cancelRequestedBy}</>}
                      {t.cancelReason && <> — “{t.cancelReason}”</>}
                    </>
                  )}
                  {t.endedAt && (
                    <>
                      {" "}
                      · {refusalOf(t) !== null ? "refused" : t.stage === "failed" ? "failed" : "completed"} {shortTime(t.endedAt)}
                    </>
                  )}
                  {refusalOf(t) !== null && <> — {refusalSentence(refusalOf(t)!)}</>}
                </span>
              </div>
              {t.outcomes.length > 0 && (
                <ul className="mt-1.5 space-y-1 pl-1 text-sm" aria-label={`What each step of “${t.title}” did`} data-testid="audit-outcomes">
                  {t.outcomes.map((o) => (
                    <li key={o.workItemId} className="flex flex-wrap items-baseline gap-x-2" data-testid="audit-outcome" data-outcome={o.kind}>
                      <Badge tone={o.tone}>{o.short}</Badge>
                      <span className="text-ink">
                        {toolLabel(o.toolName)} — {inReaderZone(o.label, t.cancelRequestedAt ? Date.parse(t.cancelRequestedAt) : Date.now())}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              {t.cancelRequestedAt && <SinceStop taskId={t.id} stopped version={t.outcomes.map((o) => `${o.workItemId}:${o.kind}`).join("|")} />}
              <Details className="mt-1">
                <Detail term="task">{t.id}</Detail>
                {t.conversationId && <Detail term="conversation">{t.conversationId}</Detail>}
                {t.outcomes.map((o) => (
                  <Detail key={o.workItemId} term={o.toolName}>
                    {o.toolCallId} · {o.kind}
                  </Detail>
                ))}
              </Details>
            </li>
          ))}
        </ul>
      </Card>
      <Card as="section" aria-labelledby="effects-title" className="p-0">
        <div className="px-5 pt-4 pb-2">
          <SectionTitle id="effects-title" count={report.effects.length}>
            External effects
          </SectionTitle>
        </div>
        {report.effects.length === 0 ? (
          <p className="px-5 pb-4 text-sm text-muted">The agent changed nothing outside Stopline for these tasks.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full min-w-[56rem] text-left text-sm">
              <thead className="border-y border-line bg-canvas/60 text-xs text-muted">
                <tr>
                  <th className="px-5 py-2 font-medium">Effect</th>
                  <th className="px-3 py-2 font-medium">Evidence</th>
                  <th className="px-3 py-2 font-medium">Outcome</th>
                  <th className="px-5 py-2 font-medium">Who decided what, when</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {report.effects.map((e) => (
                  <tr key={e.sideEffectId} className="align-top" data-testid="audit-effect">
                    <td className="px-5 py-3">
                      <span className="font-medium text-ink">{e.description ?? e.toolName}</span>
                      <Link href={`/console/tasks/${e.taskId}`} className="block text-xs text-accent hover:underline">
                        {e.taskTitle}
                      </Link>
                      <span className="block text-xs text-muted">
                        user <Owner email={e.ownerEmail} id={e.ownerId} /> · {shortTime(e.recordedAt)}
                      </span>
                    </td>
                    <td className="px-3 py-3 text-xs">
                      <p className="text-ink">{toolLabel(e.toolName)}</p>
                      <Details className="mt-1">
                        <Detail term="tool">{e.toolName}</Detail>
                        <Detail term="operation">{e.operationId}</Detail>
                        <Detail term="record">{e.externalRecordId ?? "—"}</Detail>
                        <Detail term="version the agent's write produced">{e.externalVersion ?? "—"}</Detail>
                      </Details>
                    </td>
                    <td className="px-3 py-3">
                      <Badge tone={effectTone(e.outcome)}>{effectLabel(e.outcome)}</Badge>
                      {!e.reversible && <span className="mt-1 block text-xs text-muted">irreversible</span>}
                    </td>
                    <td className="px-5 py-3 text-xs">
                      {e.decisions.length === 0 ? (
                        <span className="text-muted">No review was needed.</span>
                      ) : (
                        <ol className="space-y-1">
                          {e.decisions.map((d, i) => (
                            <li key={i}>
                              <span className="font-medium text-ink">{d.event.replace("review_item.", "")}</span> by {d.actor}{" "}
                              <time dateTime={d.at} title={fullTime(d.at)} className="text-muted">
                                {shortTime(d.at)}
                              </time>
                              {d.reason && <span className="block text-muted">{d.reason}</span>}
                            </li>
                          ))}
                        </ol>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>

      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-2">
        <Card as="section" aria-labelledby="comp-title">
          <SectionTitle id="comp-title" count={report.compensations.length}>
            Compensations
          </SectionTitle>
          {report.compensations.length === 0 ? (
            <p className="mt-2 text-sm text-muted">No compensation was proposed.</p>
          ) : (
            <ul className="mt-2 divide-y divide-line text-sm">
              {report.compensations.map((c) => (
                <li key={c.reviewItemId} className="py-2">
                  <div className="flex items-center justify-between gap-2">
                    <span className="min-w-0 truncate">
                      record <span className="font-mono text-xs">{c.externalRecordId ?? "—"}</span> at version {c.boundToVersion ?? "—"}
                    </span>
                    <Badge tone={c.status === "compensated" ? "accent" : c.status === "awaiting decision" ? "warn" : "neutral"}>{c.status}</Badge>
                  </div>
                  <p className="text-xs text-muted">
                    {titles.get(c.taskId)}
                    {c.approvedBy && <> · decided by {c.approvedBy}</>}
                    {c.decidedAt && <> at {shortTime(c.decidedAt)}</>}
                    {c.resolution && <> · {c.resolution}</>}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </Card>
        <Card as="section" aria-labelledby="uncertain-title">
          <SectionTitle id="uncertain-title" count={report.uncertain.length}>
            Still uncertain or open
          </SectionTitle>
          {report.uncertain.length === 0 ? (
            <p className="mt-2 text-sm text-muted">Nothing is uncertain: every outcome is known and decided.</p>
          ) : (
            <ul className="mt-2 divide-y divide-line text-sm">
              {report.uncertain.map((u) => (
                <li key={`${u.kind}:${u.id}`} className="py-2">
                  <p className="text-ink">{u.detail}</p>
                  <p className="text-xs text-muted">
                    {u.kind.replace("_", " ")} · {titles.get(u.taskId)} · since {shortTime(u.since)}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </div>
  );
}
