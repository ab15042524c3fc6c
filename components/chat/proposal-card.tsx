"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { asProposal, asSentence, chatKeys, ChatApiError, confirmProposal, type Proposal } from "./api";
import { formatCents } from "./labels";

interface Props {
  taskId: string;
  proposal: Proposal;
  version: number;
  /** Commitments bound to this version were scheduled. */
  confirmed: boolean;
  /** A Stop was recorded (or pressed): nothing may be confirmed any more. */
  stopped: boolean;
}

interface Conflict {
  message: string;
  proposal: Proposal | null;
  version: number | null;
}

/**
 * The exact proposal the person approves — items, quantities, unit prices and amount, or the record and
 * the email — with Confirm, which sends this version. If the proposal changed meanwhile the API refuses
 * (409) and the card shows why and the current proposal, to be confirmed on its own.
 */
export function ProposalCard({ taskId, proposal: latest, version: latestVersion, confirmed, stopped }: Props) {
  const queryClient = useQueryClient();
  const [sending, setSending] = useState(false);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Set on success, before the refetch shows the scheduled commitments: the button must not come back.
  const [confirmedHere, setConfirmedHere] = useState<number | null>(null);
  const firstSeen = useRef(latestVersion);

  // After a 409 the API's own copy of the current proposal wins until the page's copy has caught up.
  const useConflict = conflict?.proposal && conflict.version !== null && conflict.version >= latestVersion;
  const proposal = useConflict ? conflict.proposal! : latest;
  const version = useConflict ? conflict.version! : latestVersion;
  const isConfirmed = confirmed || confirmedHere === version;
  const changedWhileShown = !conflict && latestVersion !== firstSeen.current && !isConfirmed;

  async function confirm() {
    if (sending || isConfirmed) return; // a second click must not send a second confirmation
    setSending(true);
    setError(null);
    try {
      await confirmProposal(taskId, version);
      setConfirmedHere(version);
      setConflict(null);
      firstSeen.current = version;
    } catch (e) {
      if (e instanceof ChatApiError && e.status === 409 && e.code === "stale_intent") {
        const current = typeof e.details.currentProposalVersion === "number" ? e.details.currentProposalVersion : null;
        setConflict({ message: asSentence(e.message), proposal: asProposal(e.details.proposal), version: current });
        if (current !== null) firstSeen.current = current;
      } else {
        setError(asSentence((e as Error).message));
      }
    } finally {
      setSending(false);
      void queryClient.invalidateQueries({ queryKey: chatKeys.task(taskId) });
    }
  }

  const title =
    proposal.type === "order"
      ? isConfirmed
        ? "Order you confirmed"
        : "Order to confirm"
      : isConfirmed
        ? "Record and email you confirmed"
        : "Record and email to confirm";
  return (
    <section aria-label="Proposal" data-testid="proposal" data-version={version} className="rounded-card border border-line bg-surface shadow-xs">
      <header className="flex items-center justify-between gap-3 border-b border-line px-4 py-2.5">
        <h3 className="text-sm font-semibold text-ink">{title}</h3>
        <span className="text-xs text-muted">version {version}</span>
      </header>

      {conflict && (
        <div role="alert" data-testid="proposal-conflict" className="border-b border-line bg-warn-soft px-4 py-3 text-sm text-warn">
          <p className="font-medium">Not confirmed: the proposal changed before your confirmation arrived.</p>
          <p className="mt-0.5">{conflict.message}</p>
          {conflict.proposal && <p className="mt-0.5">This is the current proposal. Nothing has been ordered or sent.</p>}
        </div>
      )}
      {changedWhileShown && (
        <p role="status" className="border-b border-line bg-accent-soft px-4 py-2 text-sm text-accent-strong">
          The proposal changed while you were looking (now version {latestVersion}). Check it before you confirm.
        </p>
      )}

      <div className="px-4 py-3">{proposal.type === "order" ? <OrderView proposal={proposal} /> : <RecordView proposal={proposal} />}</div>

      <footer className="flex min-h-14 flex-wrap items-center justify-between gap-3 border-t border-line bg-canvas/50 px-4 py-2.5">
        {isConfirmed ? (
          <p className="flex items-center gap-2 text-sm text-ink" data-testid="proposal-confirmed">
            <Badge tone="ok">confirmed</Badge> You confirmed version {version}; the steps below carry it out.
          </p>
        ) : stopped ? (
          <p className="text-sm text-muted">This request was stopped before you confirmed it; nothing was ordered or sent.</p>
        ) : (
          <>
            <p className="text-sm text-muted">Nothing happens until you confirm. Your confirmation applies to exactly this version.</p>
            <Button onClick={confirm} disabled={sending}>
              {sending ? "Confirming…" : proposal.type === "order" ? `Confirm order · ${formatCents(proposal.amountCents)}` : "Confirm record and email"}
            </Button>
          </>
        )}
        {error && (
          <p role="alert" className="w-full rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
            {error}
          </p>
        )}
      </footer>
    </section>
  );
}

function OrderView({ proposal }: { proposal: Extract<Proposal, { type: "order" }> }) {
  return (
    <table className="w-full text-sm" data-testid="proposal-items">
      <caption className="sr-only">Items of the order</caption>
      <thead className="text-left text-xs text-muted">
        <tr>
          <th scope="col" className="pb-1.5 font-medium">
            Item
          </th>
          <th scope="col" className="pb-1.5 text-right font-medium">
            Quantity
          </th>
          <th scope="col" className="pb-1.5 text-right font-medium">
            Unit price
          </th>
          <th scope="col" className="pb-1.5 text-right font-medium">
            Subtotal
          </th>
        </tr>
      </thead>
      <tbody className="tabular-nums">
        {proposal.items.map((item) => (
          <tr key={item.sku} className="border-t border-line">
            <th scope="row" className="py-1.5 text-left font-medium text-ink">
              {item.sku}
            </th>
            <td className="py-1.5 text-right">{item.quantity} ×</td>
            <td className="py-1.5 text-right">{formatCents(item.unitCents)}</td>
            <td className="py-1.5 text-right">{formatCents(item.unitCents * item.quantity)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr className="border-t border-ink/20">
          <th scope="row" colSpan={3} className="pt-2 text-right font-semibold text-ink">
            Amount
          </th>
          <td className="pt-2 text-right font-semibold text-ink tabular-nums" data-testid="proposal-amount">
            {formatCents(proposal.amountCents)}
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

function RecordView({ proposal }: { proposal: Extract<Proposal, { type: "record_and_email" }> }) {
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
      <dt className="col-span-2 text-xs font-semibold tracking-wide text-muted uppercase">CRM record</dt>
      <dt className="text-muted">Name</dt>
      <dd className="text-ink">{proposal.name}</dd>
      <dt className="text-muted">Email</dt>
      <dd className="font-mono text-ink">{proposal.email}</dd>
      <dt className="col-span-2 mt-2 text-xs font-semibold tracking-wide text-muted uppercase">Email to send (cannot be unsent)</dt>
      <dt className="text-muted">To</dt>
      <dd className="font-mono text-ink">{proposal.email}</dd>
      <dt className="text-muted">Subject</dt>
      <dd className="text-ink">{proposal.subject}</dd>
      <dt className="text-muted">Body</dt>
      <dd className="whitespace-pre-wrap text-ink">{proposal.body}</dd>
    </dl>
  );
}
