import { acceptsNewWork, isActiveItem, TaskStage } from "@/lib/ledger/states";
import type { BadgeTone } from "@/components/ui/badge";
import type { Summary, TaskDetail } from "./api";

/** A Stop the person pressed on this page: shown at once, before (and whether or not) the API answered. */
export interface StopRequest {
  /** already_finished: the API answered that the request had ended before the Stop; nothing to stop. */
  state: "sending" | "recorded" | "already_finished" | "failed";
  at: number;
  error?: string;
  /** For already_finished: the API's plain answer (nothing is running; nothing was changed). */
  message?: string;
}

/** Where one request of the conversation stands, for the person reading the chat. */
export type TurnPhase = "loading" | "working" | "awaiting_confirmation" | "done" | "failed" | "stopping" | "stopped" | "not_all_stopped";

export const PHASE_LOOK: Record<TurnPhase, { label: string; tone: BadgeTone }> = {
  loading: { label: "loading…", tone: "neutral" },
  working: { label: "working", tone: "accent" },
  awaiting_confirmation: { label: "waiting for your confirmation", tone: "accent" },
  done: { label: "done", tone: "ok" },
  failed: { label: "could not be done", tone: "danger" },
  stopping: { label: "Stopping…", tone: "warn" },
  stopped: { label: "stopped", tone: "danger" },
  not_all_stopped: { label: "not all stopped", tone: "danger" },
};

export interface TurnFacts {
  detail: TaskDetail | undefined;
  summary: Summary | null | undefined;
  stop: StopRequest | undefined;
}

/**
 * The Stop is under way: pressed here and not refused, or recorded and not yet settled (the summary says
 * IN_PROGRESS until the engine's pass is done). A child that could not be stopped may run on after settlement:
 * that is the Stop's outcome, not a Stop still under way.
 */
export function isStopping({ detail, summary, stop }: TurnFacts): boolean {
  if (stop?.state === "sending") return true;
  if (stop?.state === "already_finished" && !detail?.cancelRequestedAt) return false;
  const requested = !!detail?.cancelRequestedAt || stop?.state === "recorded";
  if (!requested) return false;
  return !summary || summary.status === "IN_PROGRESS";
}

export function turnPhase(facts: TurnFacts, confirmed: boolean): TurnPhase {
  const { detail } = facts;
  if (isStopping(facts)) return "stopping";
  if (!detail) return "loading";
  if (detail.cancelRequestedAt) return facts.summary?.status === "CANCELLATION_FAILED" ? "not_all_stopped" : "stopped";
  if (detail.stage === TaskStage.failed) return "failed";
  if (detail.stage === TaskStage.completed) return "done";
  if (detail.workItems.some((i) => isActiveItem(i.status))) return "working";
  if (detail.proposal && !confirmed) return "awaiting_confirmation";
  return "done";
}

/**
 * Whether the Stop button acts on this request: it still accepts new work, and either something of it is
 * alive, or it is the latest request and carries a proposal (whose commitment may be pending or done —
 * stopping then reports what already took effect and asks for review).
 */
export function isStoppable(facts: TurnFacts, stage: string, isLatest: boolean): boolean {
  if (!acceptsNewWork(stage)) return false;
  if (facts.stop && facts.stop.state !== "failed") return false;
  const detail = facts.detail;
  if (!detail) return isLatest;
  return detail.workItems.some((i) => isActiveItem(i.status)) || (isLatest && detail.proposal != null);
}

/** The task still changes on its own: keep its event stream open. */
export function isLive(facts: TurnFacts, isLatest: boolean): boolean {
  if (isLatest || !facts.detail || isStopping(facts)) return true;
  return facts.detail.workItems.some((i) => isActiveItem(i.status)) || facts.summary?.status === "IN_PROGRESS";
}

/** The person confirmed the proposal version shown: commitments bound to it were scheduled. */
export const isConfirmed = (detail: TaskDetail | undefined, version: number | undefined) =>
  !!detail && version !== undefined && detail.workItems.some((i) => i.commitsEffect && i.proposalVersion === version);
