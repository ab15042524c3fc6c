"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { z } from "zod";
import { toolLabel } from "@/components/chat/labels";
import { apiFetch, ApiError, asSentence, isUnauthorized } from "@/components/console/api";
import { ConnectionStatus } from "@/components/console/connection-status";
import { ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "@/components/console/detail/states";
import { shortTime } from "@/components/console/format";
import { useLedgerEvents } from "@/components/console/use-ledger-events";
import { useRefetchSoon } from "@/components/console/use-refetch-soon";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import type { IncidentDetailSchema } from "@/lib/api/schemas";
import { OUTCOME_WORDS } from "@/lib/outcomes";
import { inReaderZone } from "@/lib/outcomes/time";

type IncidentDetail = z.output<typeof IncidentDetailSchema>;

/**
 * One incident, live: the switch (on or lifted, and who asked to lift it), every task it touched with each stopped
 * step's outcome in the one vocabulary, and what needs a person. Re-read whenever the ledger moves.
 */
export function IncidentDetailView({ incidentId, canLift }: { incidentId: string; canLift: boolean }) {
  const key = ["incident", incidentId];
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => apiFetch<IncidentDetail>(`/api/incidents/${encodeURIComponent(incidentId)}`, { signal }) });
  const refetchSoon = useRefetchSoon([key], 150);
  const live = useLedgerEvents({ enabled: !isUnauthorized(query.error), onOpen: refetchSoon, onEvent: refetchSoon });
  if (isUnauthorized(query.error)) return <SessionEndedBlock />;
  if (query.isPending) return <LoadingBlock label="Loading the incident…" />;
  if (query.isError) return <ErrorBlock title="Could not load the incident" message={(query.error as Error).message} onRetry={() => void query.refetch()} />;
  const { incident, on, tasks, counts } = query.data;
  return (
    <div className="space-y-6" data-testid="incident-detail" data-on={on ? "true" : "false"}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <Link href="/console/incidents" className="text-sm text-accent hover:underline">
            ← All incidents
          </Link>
          <h1 className="mt-1 text-2xl font-semibold break-words text-ink">
            {incident.targetKind === "tool" ? "Tool" : "Token"} {incident.target}
          </h1>
          <p className="mt-1 text-sm text-ink">{incident.reason}</p>
          <p className="mt-1 text-sm text-muted">
            Switched on by {incident.openedBy} at {shortTime(incident.createdAt)}.
            {incident.state === "lift_requested" && (
              <>
                {" "}
                {incident.liftRequestedBy} asked to lift it: “{incident.liftReason}”. Another person must confirm.
              </>
            )}
            {incident.state === "lifted" && (
              <>
                {" "}
                Lifted by {incident.liftedBy} at {incident.liftedAt && shortTime(incident.liftedAt)} (asked by {incident.liftRequestedBy}: “
                {incident.liftReason}”).
              </>
            )}
          </p>
        </div>
        <div className="flex flex-col items-start gap-2 sm:items-end">
          <ConnectionStatus state={live} />
          <Badge tone={on ? "danger" : "neutral"} data-testid="incident-state">
            {on ? "kill switch on" : "lifted"}
          </Badge>
        </div>
      </div>

      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="incident-counts">
        {[
          ["Tasks touched", counts.tasks],
          ["Steps stopped", counts.steps],
          ["Still stopping", counts.stillStopping],
          ["Waiting for a person", counts.needsPerson],
        ].map(([label, n]) => (
          <div key={label} className="rounded-card border border-line bg-surface px-3 py-2">
            <dt className="text-xs text-muted">{label}</dt>
            <dd className="text-xl font-semibold text-ink tabular-nums">{n}</dd>
          </div>
        ))}
      </dl>

      {canLift && on && <LiftControls incidentId={incident.id} state={incident.state} onDone={refetchSoon} />}

      <Card as="section" aria-labelledby="touched-title">
        <SectionTitle id="touched-title" count={tasks.length}>
          Tasks touched
        </SectionTitle>
        {tasks.length === 0 ? (
          <p className="mt-2 text-sm text-muted">Nothing of it was running when the switch went on, and nothing has started since.</p>
        ) : (
          <ul className="mt-3 space-y-4" data-testid="incident-tasks">
            {tasks.map((t) => (
              <li key={t.taskId} className="rounded-md border border-line p-3" data-testid="incident-task">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <Link href={`/console/tasks/${t.taskId}`} className="font-medium break-words text-accent hover:underline">
                    {t.title}
                  </Link>
                  <span className="text-xs text-muted">owner {t.ownerId}</span>
                </div>
                <ul className="mt-2 space-y-1.5 text-sm">
                  {t.steps.map((s) => (
                    <li key={s.workItemId} className="flex flex-wrap items-start gap-2" data-testid="incident-step" data-outcome={s.outcome.kind}>
                      <Badge tone={OUTCOME_WORDS[s.outcome.kind].tone} className="shrink-0">
                        {s.outcome.short}
                      </Badge>
                      <span className="min-w-0 text-ink">
                        {toolLabel(s.toolName)} — {inReaderZone(s.outcome.label, Date.now())}
                      </span>
                    </li>
                  ))}
                </ul>
                {t.needsPerson.length > 0 && (
                  <div className="mt-2 rounded-md bg-warn-soft px-2.5 py-2 text-sm text-warn" data-testid="incident-needs-person">
                    <p className="font-medium">Needs a person:</p>
                    <ul className="list-disc pl-5">
                      {t.needsPerson.map((r) => (
                        <li key={r.id}>
                          {r.subject} — by {shortTime(r.deadline)}{" "}
                          <Link href="/console/review" className="underline">
                            review queue
                          </Link>
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

/** Lifting takes two people: one asks (with why), another confirms; the one who asked can withdraw. */
function LiftControls({ incidentId, state, onDone }: { incidentId: string; state: string; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function act(path: string, body: unknown) {
    setPending(true);
    setError(null);
    try {
      await apiFetch(`/api/incidents/${encodeURIComponent(incidentId)}/${path}`, { method: "POST", body });
      setReason("");
      onDone();
    } catch (e) {
      setError(e instanceof ApiError ? asSentence(e.message) : "That did not reach the server; try again.");
    } finally {
      setPending(false);
    }
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act("lift", { reason: reason.trim() });
  };
  return (
    <Card as="section" aria-labelledby="lift-title">
      <SectionTitle id="lift-title">Lift the kill switch</SectionTitle>
      {state === "active" ? (
        <form onSubmit={submit} className="mt-2 flex flex-wrap items-end gap-2" data-testid="lift-request">
          <label className="block min-w-0 flex-1 text-sm">
            <span className="font-medium text-ink">Why is it safe now?</span>
            <Input value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={1000} className="mt-1 h-9" />
          </label>
          <Button type="submit" size="sm" disabled={pending || !reason.trim()}>
            Ask to lift it
          </Button>
        </form>
      ) : (
        <div className="mt-2 flex flex-wrap gap-2" data-testid="lift-confirm">
          <Button size="sm" onClick={() => void act("lift/confirm", {})} disabled={pending}>
            Confirm lifting it
          </Button>
          <Button size="sm" variant="ghost" onClick={() => void act("lift/withdraw", {})} disabled={pending}>
            Keep it on
          </Button>
        </div>
      )}
      {error && (
        <p role="alert" className="mt-2 rounded-md bg-danger-soft px-2.5 py-2 text-sm text-danger">
          {error}
        </p>
      )}
    </Card>
  );
}
