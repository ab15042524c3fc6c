"use client";

import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { compensationConflict, type Conflict } from "@/lib/review/conflict";
import { choiceLabel, effectiveChoice, enterHint, reviewChoices, type Choice } from "@/lib/review/choices";
import { compensationAnswerSentence, FINDING_WORDS, FINDINGS, type Finding } from "@/lib/review/decision-words";
import type { DecisionResponse } from "@/lib/sdk/client-types";
import { apiFetch, ApiError, asSentence } from "../api";
import type { ReviewItem, SideEffect } from "../detail/types";
import { dateTime, fullTime } from "../format";

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
/** A keyboard shortcut from the queue: the choice its key makes on this item (lib/review/choices.ts), with when it was pressed. */
export interface Armed {
  choice: Choice;
  at: number;
}

/**
 * The decision for one item, offering only what is still possible (lib/review/choices.ts — the buttons, the keys and
 * the Enter hint come from the same function):
 * - a compensation is approved bound to the exact record and version shown, or rejected; when the record has
 *   changed since the agent's write (a conflict the service reported), approval can only fail again: the card shows
 *   what changed (the agent's version, the current one, who, each write) and offers keeping the record as it is;
 * - an uncertain outcome is resolved by choosing what happened (took effect / did not / cannot tell) with evidence;
 * - an orphaned resource can be released again (cleanup + verification, recorded); closing it without a verified
 *   release is a separate, explicit choice with a confirmation and evidence (the person keeps reading "not released");
 * - an irreversible side effect is marked handled.
 * Every choice but a retried release needs a reason (kept in the audit). Enter in the reason field sends the choice
 * the hint names; Shift+Enter is a new line.
 */
export function DecisionForm({
  item,
  effect,
  result,
  onDecided,
  armed,
}: {
  item: ReviewItem;
  effect?: SideEffect;
  result?: Decided;
  onDecided: (r: Decided) => void;
  armed?: Armed | null;
}) {
  const id = useId();
  const proposal = (item.proposal ?? {}) as Proposal;
  const compensation = item.kind === "approve_compensation";
  const uncertain = item.kind === "resolve_uncertain";
  const orphanedResource = item.kind === "orphaned_resource";
  const conflict = compensation ? compensationConflict(proposal, effect?.evidence) : null;
  const choices = reviewChoices({ kind: item.kind, conflict: !!conflict, effectKnown: !!effect });
  const [reason, setReason] = useState("");
  const [evidence, setEvidence] = useState("");
  const [confirmed, setConfirmed] = useState(false);
  const [finding, setFinding] = useState<Finding | null>(null);
  const [pending, setPending] = useState<Choice | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<"reason" | "finding" | "confirm" | "evidence" | null>(null);
  const [chosen, setChosen] = useState<Choice | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const findingRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const confirmRef = useRef<HTMLInputElement>(null);
  const evidenceRef = useRef<HTMLTextAreaElement>(null);

  // Only what the card still offers: a choice made before a conflict appeared falls back to what remains.
  const effective = effectiveChoice(choices, chosen);
  const closing = effective === "close_unreleased";
  const ctx = { conflict: !!conflict, expectedVersion: proposal.expectedVersion ?? null, kind: item.kind };
  const label = (c: Choice) => choiceLabel(c, ctx);

  // A shortcut from the queue: choose the action and put the cursor where the person acts next.
  useEffect(() => {
    if (!armed || !choices.offered.includes(armed.choice)) return;
    setChosen(armed.choice);
    if (armed.choice === "retry_release") formRef.current?.querySelector<HTMLButtonElement>("[data-testid=retry-release]")?.focus();
    else if (uncertain && !finding) findingRef.current?.focus();
    else reasonRef.current?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [armed?.at]);

  async function decide(decision: Choice) {
    if (!choices.offered.includes(decision)) return;
    if (decision === "resolve" && uncertain && !finding) {
      setMissing("finding");
      findingRef.current?.focus();
      return;
    }
    if (decision !== "retry_release" && !reason.trim()) {
      setMissing("reason");
      reasonRef.current?.focus();
      return;
    }
    if (decision === "close_unreleased" && !confirmed) {
      setMissing("confirm");
      confirmRef.current?.focus();
      return;
    }
    if (decision === "close_unreleased" && !evidence.trim()) {
      setMissing("evidence");
      evidenceRef.current?.focus();
      return;
    }
    setPending(decision);
    setError(null);
    try {
      if (decision === "retry_release") {
        const res = await apiFetch<{ released: boolean; status: string; detail: string }>(`/api/review-items/${item.id}/retry-release`, { method: "POST" });
        const message = `${res.released ? "Released" : "Still held"}: ${asSentence(res.detail)}`;
        if (res.released) onDecided({ ok: true, message });
        else setError(message);
        return;
      }
      const body = {
        decision: decision === "close_unreleased" ? "resolve" : decision,
        reason: reason.trim(),
        ...(evidence.trim() ? { evidence: evidence.trim() } : {}),
        ...(uncertain && decision === "resolve" && finding ? { finding } : {}),
        ...(decision === "approve" ? { target: proposal.target ?? null, expectedVersion: proposal.expectedVersion ?? null } : {}),
        ...(decision === "close_unreleased" ? { confirmNotVerifiedReleased: true } : {}),
      };
      const res = await apiFetch<DecisionResponse>(`/api/review-items/${item.id}/decision`, {
        method: "POST",
        body,
      });
      const message = res.compensation ? compensationAnswerSentence(res.compensation) : decisionMessage(decision, finding);
      onDecided({ ok: true, message });
    } catch (e) {
      const text = e instanceof ApiError ? asSentence(e.message) : "The decision could not be sent.";
      setError(text);
      onDecided({ ok: false, message: text });
    } finally {
      setPending(null);
    }
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void decide(effective);
  };
  const enterSends = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void decide(effective);
    }
  };

  return (
    <form
      ref={formRef}
      onSubmit={submit}
      className="space-y-3 rounded-md border border-line bg-canvas/50 p-3 text-sm"
      aria-label={`Decide: ${item.subject}`}
      data-testid="decision-form"
    >
      {compensation && (conflict ? <ConflictBlock conflict={conflict} proposal={proposal} /> : <CompensationTerms proposal={proposal} />)}
      {orphanedResource && (
        <p className="text-muted">
          Release it again: Stopline runs the cleanup and checks with the service. Closing it without a verified release is possible only on purpose, with
          evidence of what you did; the person&apos;s chat keeps saying it was not released.
        </p>
      )}
      {item.kind === "orphaned_side_effect" && <p className="text-muted">This change cannot be undone by Stopline; record how it was handled.</p>}
      {uncertain && (
        <fieldset aria-describedby={missing === "finding" ? `${id}-finding-error` : undefined}>
          <legend className="text-xs font-medium text-ink">What happened?</legend>
          <div className="mt-1 grid gap-1.5 sm:grid-cols-3">
            {FINDINGS.map((f, i) => (
              <label
                key={f}
                className={cx(
                  "flex cursor-pointer gap-2 rounded-md border px-2.5 py-2",
                  finding === f ? "border-accent bg-accent-soft" : "border-line bg-surface",
                )}
              >
                <input
                  ref={i === 0 ? findingRef : undefined}
                  type="radio"
                  name={`${id}-finding`}
                  value={f}
                  checked={finding === f}
                  onChange={() => {
                    setFinding(f);
                    setMissing(null);
                  }}
                  className="mt-0.5 accent-accent"
                />
                <span>
                  <span className="block font-medium text-ink">{FINDING_WORDS[f].choice}</span>
                  <span className="block text-xs text-muted">{FINDING_WORDS[f].hint}</span>
                </span>
              </label>
            ))}
          </div>
          {missing === "finding" && (
            <p id={`${id}-finding-error`} className="mt-1 text-xs text-danger">
              Choose what happened.
            </p>
          )}
        </fieldset>
      )}
      <div>
        <label htmlFor={`reason-${item.id}`} className="block text-xs font-medium text-ink">
          Reason <span className="text-muted">(required, kept in the audit)</span>
        </label>
        <textarea
          ref={reasonRef}
          id={`reason-${item.id}`}
          value={reason}
          onChange={(e) => {
            setReason(e.target.value);
            if (missing === "reason") setMissing(null);
          }}
          onKeyDown={enterSends}
          rows={2}
          maxLength={2000}
          aria-invalid={missing === "reason" || undefined}
          aria-describedby={missing === "reason" ? `reason-error-${item.id}` : `${id}-enter`}
          className="mt-1 w-full rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm text-ink focus:border-accent focus:outline-none"
        />
        {missing === "reason" ? (
          <p id={`reason-error-${item.id}`} className="text-xs text-danger">
            Say why, for the audit.
          </p>
        ) : (
          <p id={`${id}-enter`} className="text-xs text-muted">
            {enterHint(effective, ctx)}
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
      {closing && (
        <fieldset className="space-y-2 rounded-md border border-danger/40 bg-danger-soft/40 p-2.5" data-testid="close-unreleased">
          <legend className="px-1 text-xs font-semibold text-danger">Close without a verified release</legend>
          <div>
            <label htmlFor={`close-evidence-${item.id}`} className="block text-xs font-medium text-ink">
              Evidence <span className="text-muted">(required: what you checked or did at the service)</span>
            </label>
            <textarea
              ref={evidenceRef}
              id={`close-evidence-${item.id}`}
              value={evidence}
              onChange={(e) => {
                setEvidence(e.target.value);
                if (missing === "evidence") setMissing(null);
              }}
              rows={2}
              maxLength={5000}
              aria-invalid={missing === "evidence" || undefined}
              aria-describedby={missing === "evidence" ? `${id}-evidence-error` : undefined}
              className="mt-1 w-full rounded-md border border-line bg-surface px-2.5 py-1.5 text-sm text-ink focus:border-accent focus:outline-none"
            />
            {missing === "evidence" && (
              <p id={`${id}-evidence-error`} className="text-xs text-danger">
                Say what you checked or did, for the audit.
              </p>
            )}
          </div>
          <label className="flex gap-2 text-sm text-ink">
            <input
              ref={confirmRef}
              type="checkbox"
              checked={confirmed}
              onChange={(e) => {
                setConfirmed(e.target.checked);
                if (missing === "confirm") setMissing(null);
              }}
              aria-invalid={missing === "confirm" || undefined}
              aria-describedby={missing === "confirm" ? `${id}-confirm-error` : undefined}
              className="mt-0.5 accent-accent"
            />
            <span>I understand Stopline has not verified this released. It stays recorded as not released, and the person is told so.</span>
          </label>
          {missing === "confirm" && (
            <p id={`${id}-confirm-error`} className="text-xs text-danger">
              Confirm that you close it without a verified release.
            </p>
          )}
        </fieldset>
      )}
      {!result?.ok && (
        <div className="flex flex-wrap gap-2">
          {compensation && !conflict && choices.offered.includes("approve") && (
            <Button size="sm" disabled={!!pending} onClick={() => void decide("approve")}>
              {pending === "approve" ? "Approving…" : label("approve")}
            </Button>
          )}
          {compensation && (
            <Button variant={conflict ? "primary" : "secondary"} size="sm" disabled={!!pending} onClick={() => void decide("reject")}>
              {pending === "reject" ? "Rejecting…" : label("reject")}
            </Button>
          )}
          {orphanedResource && (
            <Button size="sm" disabled={!!pending} onClick={() => void decide("retry_release")} data-testid="retry-release">
              {pending === "retry_release" ? "Releasing and checking…" : label("retry_release")}
            </Button>
          )}
          {orphanedResource && (
            <Button
              variant="secondary"
              size="sm"
              disabled={!!pending}
              aria-expanded={closing}
              data-testid="close-unreleased-button"
              onClick={() => {
                // The first press opens the confirmation; the next sends it (when confirmed, with evidence and a reason).
                if (!closing) {
                  setChosen("close_unreleased");
                  setMissing(null);
                  setTimeout(() => evidenceRef.current?.focus(), 0);
                } else void decide("close_unreleased");
              }}
            >
              {pending === "close_unreleased" ? "Closing…" : closing ? "Close it, not released" : label("close_unreleased")}
            </Button>
          )}
          {!compensation && !orphanedResource && (
            <Button size="sm" disabled={!!pending} onClick={() => void decide("resolve")}>
              {pending === "resolve" ? "Saving…" : label("resolve")}
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

function decisionMessage(decision: Choice, finding: Finding | null): string {
  if (decision === "reject") return "Rejected: nothing will be reversed.";
  if (decision === "close_unreleased") return "Closed without a verified release: it stays recorded as not released.";
  if (finding) return `Resolved: ${FINDING_WORDS[finding].choice.toLowerCase()}. The person's summary says so.`;
  return "Marked handled.";
}

/** What approving a compensation does, and the record version it is bound to (shown to deciders and readers alike). */
function CompensationTerms({ proposal, readOnly = false }: { proposal: Proposal; readOnly?: boolean }) {
  return (
    <div data-testid="what-will-be-done">
      <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">{readOnly ? "What approval would do" : "What approval does"}</h4>
      <p className="mt-1 text-ink">
        {proposal.description ?? "Undo the external change"} — run <span className="font-mono text-xs break-all">{proposal.tool ?? "the tool"}</span>&apos;s
        compensation on record <span className="font-mono text-xs break-all">{proposal.target ?? "—"}</span>.
      </p>
      <p className="mt-1 text-muted">
        Bound to version{" "}
        <strong className="text-ink" data-testid="bound-version">
          {proposal.expectedVersion ?? "—"}
        </strong>
        : if the record has changed since, nothing is overwritten and the approval is refused.
      </p>
    </div>
  );
}

/** After a version conflict: what changed, and why approval is no longer offered. */
function ConflictBlock({ conflict, proposal }: { conflict: Conflict; proposal: Proposal }) {
  return (
    <div data-testid="conflict" className="space-y-2 rounded-md border border-warn/40 bg-warn-soft/60 p-2.5">
      <h4 className="text-xs font-semibold tracking-wide text-warn uppercase">The record changed since the agent wrote it</h4>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
        <dt className="text-muted">Agent&apos;s version</dt>
        <dd className="text-ink" data-testid="agent-version">
          {conflict.agentVersion ?? "—"}
        </dd>
        <dt className="text-muted">Version now</dt>
        <dd className="text-ink" data-testid="current-version">
          {conflict.currentVersion}
        </dd>
        <dt className="text-muted">Changed by</dt>
        <dd className="text-ink" data-testid="changed-by">
          {conflict.editedBy.length ? conflict.editedBy.join(", ") : "someone else (the service did not say who)"}
        </dd>
      </dl>
      {conflict.writes.length > 0 && (
        <ul className="space-y-0.5 text-xs text-ink" aria-label="Writes since the agent's" data-testid="field-diff">
          {conflict.writes.map((w) => (
            <li key={`${w.version}-${w.by}`}>
              v{w.version} · {w.by}
              {w.action && <>: {w.action}</>}
              {w.at && (
                <>
                  {" "}
                  ·{" "}
                  <time dateTime={w.at} title={fullTime(w.at)}>
                    {dateTime(w.at)}
                  </time>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="text-xs text-muted">
        Undoing {proposal.target ? <span className="font-mono">{proposal.target}</span> : "it"} now would overwrite their change, so approval is not offered.
        Keep the record as it is, or handle it with them and record what you did.
      </p>
    </div>
  );
}

/**
 * In place of the decision form for people who may read the queue but not decide it (support): what a
 * decision would do, and who makes it. No field, no button — the API refuses their decisions too.
 */
export function ReadOnlyDecision({ item, effect }: { item: ReviewItem; effect?: SideEffect }) {
  const compensation = item.kind === "approve_compensation";
  const proposal = (item.proposal ?? {}) as Proposal;
  const conflict = compensation ? compensationConflict(proposal, effect?.evidence) : null;
  return (
    <div className="space-y-3 rounded-md border border-dashed border-line bg-canvas/40 p-3 text-sm" data-testid="read-only-decision">
      {compensation && (conflict ? <ConflictBlock conflict={conflict} proposal={proposal} /> : <CompensationTerms proposal={proposal} readOnly />)}
      {item.kind === "resolve_uncertain" && (
        <p className="text-muted">An operator resolves this by saying what happened, with a reason and the evidence they checked.</p>
      )}
      {item.kind === "orphaned_resource" && <p className="text-muted">An operator releases it again or cleans it up, then marks it handled.</p>}
      {item.kind === "orphaned_side_effect" && <p className="text-muted">Stopline cannot undo this change; an operator records how it was handled.</p>}
      <p className="flex items-center gap-2 text-muted">
        <span aria-hidden="true" className="size-1.5 shrink-0 rounded-full bg-muted/60" />
        Read-only: operators decide review items.
      </p>
    </div>
  );
}
