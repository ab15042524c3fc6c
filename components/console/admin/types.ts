import type { z } from "zod";
import type {
  AccountListSchema,
  AccountSchema,
  AdminHistoryEventSchema,
  AdminHistorySchema,
  ApiTokenListItemSchema,
  ApiTokenListSchema,
  CreatedTokenSchema,
} from "@/lib/api/schemas";

// Types only: the console trusts its own API's contract and ships no zod to the browser.
export type Account = z.output<typeof AccountSchema>;
export type AccountList = z.output<typeof AccountListSchema>;
export type ApiToken = z.output<typeof ApiTokenListItemSchema>;
export type ApiTokenList = z.output<typeof ApiTokenListSchema>;
export type CreatedToken = z.output<typeof CreatedTokenSchema>;
export type AdminHistory = z.output<typeof AdminHistorySchema>;
export type AdminHistoryEvent = z.output<typeof AdminHistoryEventSchema>;

export const ACCOUNTS_KEY = ["accounts"] as const;
export const TOKENS_KEY = ["api-tokens"] as const;
/** Prefix of the history's queries (one per filter): invalidating it refreshes every one. */
export const HISTORY_KEY = ["admin-history"] as const;

/** Who is looking at the page: a person (their own row cannot be disabled) or an admin token. */
export interface Viewer {
  id: string;
  kind: "person" | "token";
}

export type PersonRoleName = Account["role"];
export const PERSON_ROLE_OPTIONS: { value: PersonRoleName; label: string; hint: string }[] = [
  { value: "user", label: "User", hint: "chats with the agent; sees and stops only their own tasks" },
  { value: "operator", label: "Operator", hint: "decides review items and handles escalations" },
  { value: "support", label: "Support", hint: "reads everything, changes nothing" },
  { value: "admin", label: "Admin", hint: "accounts, API tokens, settings" },
];

export type TokenRoleName = ApiToken["role"];
export const TOKEN_ROLE_OPTIONS: { value: TokenRoleName; label: string; hint: string }[] = [
  { value: "agent", label: "Agent", hint: "an agent runtime: creates tasks, schedules work, presses Stop" },
  { value: "worker", label: "Worker", hint: "a worker process: claims work items and reports how they end" },
  { value: "admin", label: "Admin", hint: "everything, including accounts and tokens — use sparingly" },
];

/** Field errors from the API's 400: "invalid request — email: must be an e-mail address; password: …". */
export function fieldErrors<F extends string>(message: string, fields: readonly F[]): { fields: Partial<Record<F, string>>; other: string | null } {
  const at = message.indexOf(" — ");
  if (!message.startsWith("invalid request") || at < 0) return { fields: {}, other: message };
  const names = [...fields, "(body)"].map((f) => f.replace(/[()]/g, "\\$&")).join("|");
  const parts = message.slice(at + 3).split(new RegExp(`; (?=(?:${names}): )`));
  const result: Partial<Record<F, string>> = {};
  const other: string[] = [];
  for (const part of parts) {
    const colon = part.indexOf(": ");
    const field = (colon > 0 ? part.slice(0, colon) : "") as F;
    if (fields.includes(field)) result[field] ??= part.slice(colon + 2);
    else other.push(part);
  }
  return { fields: result, other: other.length ? other.join("; ") : null };
}
