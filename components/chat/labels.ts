/** The chat's words: the shared label and colour map (components/labels.ts) and the demo tools' names. */
import { readerClock } from "@/lib/outcomes/time";

export {
  ITEM_STATUS,
  isItemStatus,
  itemLook,
  RESOURCE_STATE,
  resourceLook,
  EFFECT_OUTCOME,
  effectLook,
  SUMMARY_STATUS,
  type StatusLook,
} from "@/components/labels";

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

/** A time of day in the reader's clock — the one format of lib/outcomes/time.ts (hour and minute, the reader's zone). */
export const clock = (iso: string) => readerClock.time(Date.parse(iso));

/** "3 s", "1 min 20 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
