"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import { stageLabel } from "@/components/console/task-stage";
import { isTerminalTask as isEnded, WorkItemStatus } from "@/lib/ledger/states";
import { asProposal, chatKeys, type Summary, type TaskDetail, type TaskRow, type Turn } from "./api";
import { clock, itemLook, toolLabel } from "./labels";
import { refusalOf, refusalSentence } from "@/lib/outcomes/task-standing";
import type { Change } from "./meanwhile";
import { ProposalCard } from "./proposal-card";
import { RequestReversal } from "@/components/request-reversal";
import { StopSummary } from "./stop-summary";
import { isConfirmed, turnPhase, type StopRequest } from "./turn-state";
import { StepsSkeleton, WorkPanel } from "./work-panel";

interface Props {
  task: TaskRow;
  detail: TaskDetail | undefined;
  summary: Summary | null | undefined;
  stop: StopRequest | undefined;
  /** What POST …/messages answered, when this page sent the message. */
  turn: Turn | undefined;
  changes: Change[];
  onDismissChanges: () => void;
}

const GENERATE = "inference.generate";

/** One exchange: the person's message, the agent's reply, its proposal, its steps, and what a Stop did. */
export function TurnView({ task, detail, summary, stop, turn, changes, onDismissChanges }: Props) {
  const queryClient = useQueryClient();
  const generate = detail?.workItems.find((i) => i.toolName === GENERATE);
  // Born stopped (Stop pressed right after Enter): there is no reply to wait for.
  const refusal = detail ? refusalOf(detail) : null;
  const reply =
    turn?.reply ??
    replyOf(generate?.input) ??
    (detail && !generate && detail.cancelRequestedAt
      ? "You pressed Stop before I started, so I did nothing."
      : refusal !== null
        ? refusalSentence(refusal)
        : null);
  const proposal = asProposal(detail?.proposal ?? turn?.proposal ?? null);
  const proposalVersion = detail ? detail.proposalVersion : (turn?.proposal?.version as number | undefined);
  const confirmed = isConfirmed(detail, proposalVersion);
  const facts = { detail, summary, stop };
  const phase = turnPhase(facts, confirmed);
  const stopShown = !!stop || !!detail?.cancelRequestedAt;

  // A Stop pressed on this page: bring its outcome into view as it appears and as it settles.
  const summaryRef = useRef<HTMLDivElement>(null);
  const settled = summary?.status;
  useEffect(() => {
    if (stop) summaryRef.current?.firstElementChild?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [stop, settled]);

  return (
    <article data-testid="turn" data-task-id={task.id} data-phase={phase} aria-label={`Request: ${task.title}`} className="space-y-3">
      <UserBubble text={task.title} at={task.createdAt} />

      <div className="flex gap-3">
        <AgentMark />
        <div className="min-w-0 flex-1 space-y-3">
          <div className="text-[0.9375rem] leading-7 text-ink" data-testid="agent-reply">
            {reply ? (
              <p>{reply}</p>
            ) : (
              <p className="h-7 w-2/3 animate-pulse rounded bg-line/70" role="status">
                <span className="sr-only">Loading the reply</span>
              </p>
            )}
            <GeneratedText status={generate?.status} result={generate?.result} />
          </div>

          {proposal && proposalVersion !== undefined && (
            <ProposalCard
              taskId={task.id}
              proposal={proposal}
              version={proposalVersion}
              confirmed={confirmed}
              stopped={!!detail?.cancelRequestedAt || (!!stop && stop.state !== "failed")}
            />
          )}

          {changes.length > 0 && <Meanwhile changes={changes} onDismiss={onDismissChanges} />}

          {detail ? <WorkPanel detail={detail} phase={phase} /> : <StepsSkeleton />}

          {stopShown && (
            <div ref={summaryRef}>
              <StopSummary summary={summary} stop={stop} detail={detail} />
            </div>
          )}
          {detail && isEnded(detail.stage) && (
            <RequestReversal detail={detail} onRequested={() => void queryClient.invalidateQueries({ queryKey: chatKeys.task(detail.id) })} />
          )}
        </div>
      </div>
    </article>
  );
}

export function UserBubble({ text, at, pending, failed }: { text: string; at?: string; pending?: boolean; failed?: boolean }) {
  return (
    <div className="flex justify-end">
      <div className="max-w-[85%] sm:max-w-[70%]">
        <p
          data-testid="user-message-bubble"
          className="rounded-2xl rounded-br-md bg-accent px-4 py-2.5 text-[0.9375rem] leading-6 whitespace-pre-wrap text-white shadow-xs"
        >
          {text}
        </p>
        <p className="mt-1 text-right text-xs text-muted">
          {failed ? <span className="text-danger">Not sent</span> : pending ? "Sending…" : at ? <time dateTime={at}>{clock(at)}</time> : null}
        </p>
      </div>
    </div>
  );
}

export function AgentMark() {
  return (
    <span aria-hidden="true" className="mt-1 grid size-7 shrink-0 place-items-center rounded-full bg-accent-soft">
      <span className="size-2.5 rounded-sm bg-accent" />
    </span>
  );
}

/** The streamed reply (inference.generate): its text once complete; otherwise what became of it. */
function GeneratedText({ status, result }: { status: string | undefined; result: unknown }) {
  if (!status) return null;
  const text = (result as { text?: unknown } | null)?.text;
  if (status === WorkItemStatus.completed && typeof text === "string") {
    return (
      <p className="mt-2 text-muted" data-testid="generated-text">
        {text}
      </p>
    );
  }
  if (status === WorkItemStatus.queued || status === WorkItemStatus.running) {
    return (
      <p className="mt-2 flex h-7 items-center gap-1 text-muted" role="status">
        <span className="sr-only">Writing the rest of the reply</span>
        {[0, 1, 2].map((i) => (
          <span key={i} aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-muted/70" style={{ animationDelay: `${i * 150}ms` }} />
        ))}
      </p>
    );
  }
  if (itemLook(status).tone === "danger" && status !== WorkItemStatus.failed) {
    return <p className="mt-2 text-sm text-muted italic">The rest of this reply was stopped before it was finished.</p>;
  }
  if (status === WorkItemStatus.failed) return <p className="mt-2 text-sm text-danger">The rest of this reply could not be written.</p>;
  return null;
}

/** The reply's headline, kept with the reply's step (lib/agent/conversation.ts). */
function replyOf(input: unknown): string | undefined {
  const reply = (input as { reply?: unknown } | null)?.reply;
  return typeof reply === "string" ? reply : undefined;
}

function Meanwhile({ changes, onDismiss }: { changes: Change[]; onDismiss: () => void }) {
  const shown = changes.slice(0, 8);
  return (
    <section aria-label="While you were away" data-testid="meanwhile" className="rounded-card border border-accent/25 bg-accent-soft/60 px-4 py-3">
      <div className="flex items-start justify-between gap-3">
        <h3 className="text-sm font-semibold text-accent-strong">While you were away</h3>
        <Button variant="ghost" size="sm" className="-mt-1 -mr-2 h-7" onClick={onDismiss}>
          Dismiss
        </Button>
      </div>
      <ul className="mt-1 space-y-0.5 text-sm text-ink">
        {shown.map((c) => (
          <li key={`${c.itemId ?? "task"}-${c.to}`}>
            <time dateTime={c.at} className="mr-2 font-mono text-xs text-muted tabular-nums">
              {clock(c.at)}
            </time>
            {c.toolName ? toolLabel(c.toolName) : "This request"}: {c.from ? `${word(c)} → ` : "new step, "}
            <strong className="font-semibold">{c.toolName ? itemLook(c.to).label : stageLabel(c.to)}</strong>
          </li>
        ))}
      </ul>
      {changes.length > shown.length && <p className="mt-1 text-xs text-muted">And {changes.length - shown.length} more changes, shown below.</p>}
    </section>
  );
}

const word = (c: Change) => (c.from ? (c.toolName ? itemLook(c.from).label : stageLabel(c.from)) : "");
