import type { BadgeTone } from "@/components/ui/badge";
import { ResourceState, SideEffectOutcome, WorkItemStatus } from "@/lib/ledger/states";

/**
 * How the chat names and colours what it shows — the one place. Records are keyed by every state, so a new
 * state does not compile until it has words here. Tones follow the theme: accent = under way, warn = needs
 * attention or still being established, ok = done, danger = stopped or failed.
 */

interface StatusLook {
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

/** What each demo tool does, in the person's words. Unknown tools show their name. */
const TOOL_LABEL: Record<string, string> = {
  "inference.generate": "Writing the reply",
  "reports.export_report": "Exporting the report",
  "shop.check_stock": "Checking stock and prices",
  "shop.create_order": "Placing the order",
  "crm.create_record": "Creating the CRM record",
  "mailer.send_email": "Sending the email",
};
export const toolLabel = (toolName: string) => TOOL_LABEL[toolName] ?? toolName;

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" });
export const formatCents = (cents: number) => money.format(cents / 100);

const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
export const clock = (iso: string) => time.format(new Date(iso));

/** "3 s", "1 min 20 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
