import type { BadgeTone } from "@/components/ui/badge";
import { ResourceState, SideEffectOutcome, WorkItemStatus } from "@/lib/ledger/states";

/**
 * How every page — chat, console, review queue, audit — names and colours a work item's status, a resource's state,
 * an effect's outcome and a Stop's summary status: the one place (a step's outcome has its own words in
 * lib/outcomes). Records are keyed by every state, so a new state does not compile until it has words here. Tones
 * follow the theme: accent = under way, warn = needs attention or still being established, ok = done, danger =
 * stopped or failed.
 */

export interface StatusLook {
  label: string;
  tone: BadgeTone;
  /** Still moving: the badge pulses. */
  moving?: true;
}

export const ITEM_STATUS: Record<WorkItemStatus, StatusLook> = {
  [WorkItemStatus.queued]: { label: "queued", tone: "neutral" },
  [WorkItemStatus.running]: { label: "running", tone: "accent", moving: true },
  [WorkItemStatus.submitted]: { label: "submitted", tone: "accent", moving: true },
  [WorkItemStatus.cancelling]: { label: "stopping", tone: "warn", moving: true },
  [WorkItemStatus.unrecoverable]: { label: "unrecoverable", tone: "warn", moving: true },
  [WorkItemStatus.uncertain]: { label: "uncertain", tone: "warn", moving: true },
  [WorkItemStatus.completed]: { label: "completed", tone: "ok" },
  [WorkItemStatus.failed]: { label: "failed", tone: "danger" },
  [WorkItemStatus.cancelled]: { label: "cancelled", tone: "danger" },
  [WorkItemStatus.partial]: { label: "partial", tone: "danger" },
  [WorkItemStatus.cancelledIncomplete]: { label: "discarded", tone: "danger" },
};

const KNOWN_ITEM = new Set<string>(Object.values(WorkItemStatus));
export const isItemStatus = (s: unknown): s is WorkItemStatus => typeof s === "string" && KNOWN_ITEM.has(s);
export const itemLook = (status: string): StatusLook => (isItemStatus(status) ? ITEM_STATUS[status] : { label: status.replaceAll("_", " "), tone: "neutral" });

export const RESOURCE_STATE: Record<ResourceState, { label: string; tone: BadgeTone }> = {
  [ResourceState.held]: { label: "held", tone: "neutral" },
  [ResourceState.releaseRequested]: { label: "being released", tone: "warn" },
  [ResourceState.released]: { label: "released", tone: "ok" },
  [ResourceState.orphaned]: { label: "not released", tone: "danger" },
};
export const resourceLook = (state: string) => RESOURCE_STATE[state as ResourceState] ?? { label: state, tone: "neutral" as BadgeTone };

export const EFFECT_OUTCOME: Record<SideEffectOutcome, { label: string; tone: BadgeTone }> = {
  [SideEffectOutcome.unknown]: { label: "not yet confirmed", tone: "warn" },
  [SideEffectOutcome.committed]: { label: "took effect", tone: "warn" },
  [SideEffectOutcome.notCommitted]: { label: "did not take effect", tone: "ok" },
  [SideEffectOutcome.compensated]: { label: "reversed", tone: "ok" },
};
export const effectLook = (outcome: string) => EFFECT_OUTCOME[outcome as SideEffectOutcome] ?? { label: outcome, tone: "neutral" as BadgeTone };

/** The cancellation summary's status, as a heading. */
export const SUMMARY_STATUS: Record<string, { title: string; tone: BadgeTone }> = {
  IN_PROGRESS: { title: "Stopping… finding out what each step did", tone: "warn" },
  CANCELLED: { title: "Stopped", tone: "ok" },
  PARTIALLY_CANCELLED: { title: "Stopped — some work had already happened", tone: "warn" },
  CANCELLATION_FAILED: { title: "Not everything could be stopped", tone: "danger" },
};
