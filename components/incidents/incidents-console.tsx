"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import type { z } from "zod";
import { apiFetch, ApiError, asSentence, isUnauthorized } from "@/components/console/api";
import { ConnectionStatus } from "@/components/console/connection-status";
import { EmptyBlock, ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "@/components/console/detail/states";
import { shortTime } from "@/components/console/format";
import { useLedgerEvents } from "@/components/console/use-ledger-events";
import { useRefetchSoon } from "@/components/console/use-refetch-soon";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { QueryKeys } from "@/components/data/query-keys";
import type { IncidentListSchema, IncidentTargetsSchema, OpenIncidentResponseSchema } from "@/lib/api/schemas";

type IncidentList = z.output<typeof IncidentListSchema>;
const KEY = QueryKeys.incidents;

/** The incidents page: every kill switch (on or lifted) and, for operators, the form that turns one on. */
export function IncidentsConsole({ canOpen }: { canOpen: boolean }) {
  const list = useQuery({ queryKey: KEY, queryFn: ({ signal }) => apiFetch<IncidentList>("/api/incidents", { signal }) });
  const refetchSoon = useRefetchSoon([KEY], 200);
  const live = useLedgerEvents({
    enabled: !isUnauthorized(list.error),
    onOpen: refetchSoon,
    onEvent: (e) => (e.type.startsWith("incident.") || e.type.startsWith("review_item.")) && refetchSoon(),
  });
  if (isUnauthorized(list.error)) return <SessionEndedBlock />;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold text-ink">Incidents</h1>
          <p className="mt-1 max-w-2xl text-sm text-muted">
            A kill switch quarantines a tool or an agent token: from the moment it is on, nothing of it is scheduled or started anywhere, and everything of it
            already running is stopped like a Stop — with the same checks and the same review.
          </p>
        </div>
        <ConnectionStatus state={live} />
      </div>
      {canOpen && <OpenIncidentForm onOpened={refetchSoon} />}
      <Card as="section" aria-labelledby="incidents-title">
        <SectionTitle id="incidents-title" count={list.data?.incidents.length}>
          Kill switches
        </SectionTitle>
        {list.isPending ? (
          <LoadingBlock label="Loading incidents…" />
        ) : list.isError ? (
          <ErrorBlock title="Could not load the incidents" message={(list.error as Error).message} onRetry={() => void list.refetch()} />
        ) : list.data.incidents.length === 0 ? (
          <EmptyBlock title="No incident so far">Turn a kill switch on above when a tool or a token must stop everywhere.</EmptyBlock>
        ) : (
          <ul className="mt-3 divide-y divide-line" data-testid="incident-list">
            {list.data.incidents.map(({ incident, on, tasks, openReviewItems }) => (
              <li key={incident.id} className="flex flex-wrap items-center justify-between gap-2 py-2.5 text-sm">
                <div className="min-w-0">
                  <Link href={`/console/incidents/${incident.id}`} className="font-medium text-accent hover:underline">
                    {incident.targetKind === "tool" ? "Tool" : "Token"} {incident.target}
                  </Link>
                  <p className="text-muted">
                    {incident.reason} · since {shortTime(incident.createdAt)} · {tasks} {tasks === 1 ? "task" : "tasks"} touched
                    {openReviewItems > 0 && <> · {openReviewItems} waiting for a person</>}
                  </p>
                </div>
                <Badge tone={on ? "danger" : "neutral"}>{on ? (incident.state === "lift_requested" ? "on — lift asked" : "on") : "lifted"}</Badge>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function OpenIncidentForm({ onOpened }: { onOpened: () => void }) {
  const id = useId();
  const [targetKind, setTargetKind] = useState<"tool" | "token">("tool");
  const [target, setTarget] = useState("");
  // What a switch can name: it matches a tool's ledger name exactly and a token by its id, so typing is helped and
  // a name that matches nothing known is said before the switch is turned on.
  const targets = useQuery({
    queryKey: QueryKeys.incidentTargets,
    queryFn: ({ signal }) => apiFetch<z.output<typeof IncidentTargetsSchema>>("/api/incidents/targets", { signal }),
  });
  const known = targetKind === "tool" ? targets.data?.tools.map((t) => t.name) : targets.data?.tokens.map((t) => t.id);
  const unknownTarget = !!target.trim() && !!known && !known.includes(target.trim());
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string; href?: string } | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setMessage(null);
    try {
      const answer = await apiFetch<z.output<typeof OpenIncidentResponseSchema>>("/api/incidents", {
        method: "POST",
        body: { targetKind, target: target.trim(), reason: reason.trim() },
      });
      const stopped = answer.stoppedWorkItems.length + answer.stoppedTasks.length;
      setMessage({
        ok: true,
        href: `/console/incidents/${answer.incident.id}`,
        text: answer.alreadyOpen
          ? "A kill switch was already on for it: nothing changed."
          : `The kill switch is on. ${stopped === 0 ? "Nothing of it was running." : `${stopped} ${stopped === 1 ? "thing" : "things"} of it being stopped.`}`,
      });
      setTarget("");
      setReason("");
      onOpened();
    } catch (err) {
      setMessage({
        ok: false,
        text: err instanceof ApiError ? asSentence(err.message) : "The switch could not be turned on; check the connection and try again.",
      });
    } finally {
      setPending(false);
    }
  }
  return (
    <Card as="section" aria-labelledby={`${id}-title`}>
      <form onSubmit={submit} className="space-y-3" data-testid="open-incident">
        <SectionTitle id={`${id}-title`}>Turn a kill switch on</SectionTitle>
        <fieldset className="flex flex-wrap gap-4 text-sm">
          <legend className="sr-only">What to quarantine</legend>
          {(["tool", "token"] as const).map((k) => (
            <label key={k} className="inline-flex items-center gap-1.5">
              <input type="radio" name={`${id}-kind`} value={k} checked={targetKind === k} onChange={() => setTargetKind(k)} />
              {k === "tool" ? "A tool" : "An agent token"}
            </label>
          ))}
        </fieldset>
        <div className="grid gap-3 sm:grid-cols-2">
          <label className="block text-sm">
            <span className="font-medium text-ink">{targetKind === "tool" ? "Tool name" : "Token id"}</span>
            <Input
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              required
              maxLength={200}
              list={`${id}-targets`}
              autoComplete="off"
              placeholder={targetKind === "tool" ? "e.g. shop.create_order" : "the token's id"}
              className="mt-1 h-9"
              aria-describedby={unknownTarget ? `${id}-unknown` : undefined}
            />
            <datalist id={`${id}-targets`} data-testid="incident-targets">
              {targetKind === "tool"
                ? targets.data?.tools.map((t) => <option key={t.name} value={t.name} label={t.live ? `${t.live} running or queued` : "nothing running"} />)
                : targets.data?.tokens.map((t) => <option key={t.id} value={t.id} label={`${t.name} (${t.role}, ${t.prefix}…)`} />)}
            </datalist>
            {unknownTarget && (
              <span id={`${id}-unknown`} className="mt-1 block text-xs text-warn" data-testid="incident-target-unknown">
                {targetKind === "tool"
                  ? "No work of a tool by this exact name is known: the switch would stop nothing running now (a gateway tool is named mcp:<server>.<tool>)."
                  : "No agent or worker token has this id."}
              </span>
            )}
          </label>
          <label className="block text-sm">
            <span className="font-medium text-ink">Reason</span> <span className="text-muted">(shown to everyone refused)</span>
            <Input value={reason} onChange={(e) => setReason(e.target.value)} required maxLength={1000} className="mt-1 h-9" />
          </label>
        </div>
        <Button type="submit" variant="danger" size="sm" disabled={pending || !target.trim() || !reason.trim()}>
          {pending ? "Turning it on…" : "Turn the kill switch on"}
        </Button>
        {message && (
          <p role={message.ok ? "status" : "alert"} className={message.ok ? "text-sm text-ink" : "rounded-md bg-danger-soft px-2.5 py-2 text-sm text-danger"}>
            {message.text}{" "}
            {message.href && (
              <Link href={message.href} className="text-accent hover:underline">
                Open the incident
              </Link>
            )}
          </p>
        )}
      </form>
    </Card>
  );
}
