"use client";

import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { apiFetch, ApiError, asSentence } from "../api";
import type { ReviewItem } from "../detail/types";

export interface Decided {
  ok: boolean;
  message: string;
}
interface Proposal {
  action?: string;
  tool?: string;
  target?: string | null;
  expectedVersion?: string | null;
  description?: string;
}
type Decision = "approve" | "reject" | "resolve";

/**
 * The decision for one item. A compensation is approved bound to the exact record and version shown
 * (the API refuses a mismatch with 409 and says why: shown here as is); anything else is resolved with a
 * reason, and for an uncertain outcome, the evidence.
 */
export function DecisionForm({ item, result, onDecided }: { item: ReviewItem; result?: Decided; onDecided: (r: Decided) => void }) {
  const proposal = (item.proposal ?? {}) as Proposal;
  const compensation = item.kind === "approve_compensation";
  const uncertain = item.kind === "resolve_uncertain";
  const [reason, setReason] = useState("");
  const [evidence, setEvidence] = useState("");
  const [pending, setPending] = useState<Decision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reasonMissing, setReasonMissing] = useState(false);

  async function decide(decision: Decision) {
    if (!reason.trim()) {
      setReasonMissing(true);
      document.getElementById(`reason-${item.id}`)?.focus();
      return;
    }
    setPending(decision);
    setError(null);
    try {
      const body = {
        decision,
        reason: reason.trim(),
        ...(evidence.trim() ? { evidence: evidence.trim() } : {}),
        ...(decision === "approve" ? { target: proposal.target ?? null, expectedVersion: proposal.expectedVersion ?? null } : {}),
      };
      const res = await apiFetch<{ status: string; compensation?: { status: string; detail: string } }>(`/api/review-items/${item.id}/decision`, {
        method: "POST",
        body,
      });
      const message = res.compensation
        ? res.compensation.status === "compensated"
          ? `Compensation executed: ${res.compensation.detail}.`
          : `Compensation ${res.compensation.status}: ${res.compensation.detail}.`
        : `Decision recorded (${res.status}).`;
      onDecided({ ok: true, message });
    } catch (e) {
      const text = e instanceof ApiError ? (e.status === 409 ? `Refused: ${asSentence(e.message)}` : asSentence(e.message)) : "The decision could not be sent.";
      setError(text);
      onDecided({ ok: false, message: text });
    } finally {
      setPending(null);
    }
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void decide(compensation ? "approve" : "resolve");
  };

  return (
    <form onSubmit={submit} className="space-y-3 rounded-md border border-line bg-canvas/50 p-3 text-sm" aria-label={`Decide: ${item.subject}`}>
      {compensation && <CompensationTerms proposal={proposal} />}
      {item.kind === "orphaned_resource" && <p className="text-muted">Release or clean up the resource yourself, then mark it handled with what you did.</p>}
      {item.kind === "orphaned_side_effect" && <p className="text-muted">This change cannot be undone by Stopline; record how it was handled.</p>}
      <div>
        <label htmlFor={`reason-${item.id}`} className="block text-xs font-medium text-ink">
          Reason <span className="text-muted">(required, kept in the audit)</span>
        </label>
        <textarea
          id={`reason-${item.id}`}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            setReasonMissing(false);
          }}
          rows={2}
          maxLength={2000}
          aria-invalid={reasonMissing || undefined}
          aria-describedby={reasonMissing ? `reason-error-${item.id}` : undefined}
          className="mt-1 w-full rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm text-ink focus:border-accent focus:outline-none"
        />
        {reasonMissing && (
          <p id={`reason-error-${item.id}`} className="text-xs text-danger">
            Say why, for the audit.
          </p>
        )}
      </div>
      {uncertain && (
        <div>
          <label htmlFor={`evidence-${item.id}`} className="block text-xs font-medium text-ink">
            Evidence <span className="text-muted">(what you checked: a record, a ticket, a call)</span>
          </label>
          <textarea
            id={`evidence-${item.id}`}
            value={evidence}
            onChange={(e) => setEvidence(e.target.value)}
            rows={2}
            maxLength={5000}
            className="mt-1 w-full rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm text-ink focus:border-accent focus:outline-none"
          />
        </div>
      )}
      {!result?.ok && (
      <div className="flex flex-wrap gap-2">
        {compensation ? (
          <>
            <Button type="submit" size="sm" disabled={!!pending}>
              {pending === "approve" ? "Approving…" : `Approve (version ${proposal.expectedVersion ?? "—"})`}
            </Button>
            <Button variant="secondary" size="sm" disabled={!!pending} onClick={() => void decide("reject")}>
              {pending === "reject" ? "Rejecting…" : "Reject"}
            </Button>
          </>
        ) : (
          <Button type="submit" size="sm" disabled={!!pending}>
            {pending ? "Saving…" : item.kind === "orphaned_resource" ? "Mark handled" : uncertain ? "Resolve" : "Mark handled"}
          </Button>
        )}
      </div>
      )}
      <div aria-live="assertive" aria-atomic="true">
        {error ? (
          <p role="alert" data-testid="decision-error" className="rounded-md bg-danger-soft px-2.5 py-2 text-sm text-danger">
            {error}
          </p>
        ) : result?.ok ? (
          <p className="text-sm text-ok">{result.message}</p>
        ) : null}
      </div>
    </form>
  );
}

/** What approving a compensation does, and the record version it is bound to (shown to deciders and readers alike). */
function CompensationTerms({ proposal, readOnly = false }: { proposal: Proposal; readOnly?: boolean }) {
  return (
    <div data-testid="what-will-be-done">
      <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">{readOnly ? "What approval would do" : "What approval does"}</h4>
      <p className="mt-1 text-ink">
        {proposal.description ?? "Undo the external change"} — run <span className="font-mono text-xs">{proposal.tool ?? "the tool"}</span>&apos;s
        compensation on record <span className="font-mono text-xs">{proposal.target ?? "—"}</span>.
      </p>
      <p className="mt-1 text-muted">
        Bound to version <strong className="text-ink" data-testid="bound-version">{proposal.expectedVersion ?? "—"}</strong>: if the record has changed
        since, nothing is overwritten and the approval is refused.
      </p>
    </div>
  );
}

/**
 * In place of the decision form for people who may read the queue but not decide it (support): what a
 * decision would do, and who makes it. No field, no button — the API refuses their decisions too.
 */
export function ReadOnlyDecision({ item }: { item: ReviewItem }) {
  const compensation = item.kind === "approve_compensation";
  return (
    <div className="space-y-3 rounded-md border border-dashed border-line bg-canvas/40 p-3 text-sm" data-testid="read-only-decision">
      {compensation && <CompensationTerms proposal={(item.proposal ?? {}) as Proposal} readOnly />}
      {item.kind === "resolve_uncertain" && <p className="text-muted">An operator resolves this with a reason and the evidence they checked.</p>}
      {item.kind === "orphaned_resource" && <p className="text-muted">An operator releases or cleans up the resource, then marks it handled.</p>}
      {item.kind === "orphaned_side_effect" && <p className="text-muted">Stopline cannot undo this change; an operator records how it was handled.</p>}
      <p className="flex items-center gap-2 text-muted">
        <span aria-hidden="true" className="size-1.5 shrink-0 rounded-full bg-muted/60" />
        Read-only: operators decide review items.
      </p>
    </div>
  );
}
