import type { z } from "zod";
import type { LedgerEventSchema, SessionSchema, TaskListSchema } from "@/lib/api/schemas";

// Types only: the console trusts its own API's contract and ships no zod to the browser.
export type TaskList = z.output<typeof TaskListSchema>;
export type TaskRow = TaskList["tasks"][number];
export type LedgerEvent = z.output<typeof LedgerEventSchema>;
export type Session = z.output<typeof SessionSchema>;

/** An error answer of the API: `{ error: { code, message } }` with its HTTP status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The API's messages are lower-case clauses ("that token is not valid …"); shown alone, as a sentence. */
export function asSentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export const isUnauthorized = (error: unknown) => error instanceof ApiError && error.status === 401;

/**
 * A same-origin JSON call with the session cookie. Unsafe methods need no extra header: the browser
 * sends Origin / Sec-Fetch-Site itself, which is what the API checks for cookie-authenticated writes.
 */
export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? "GET",
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json", ...(init.body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "network", "the server could not be reached; check your connection");
  }
  if (response.status === 204) return undefined as T;
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const e = (payload as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(response.status, e?.code ?? "http_error", e?.message ?? `the server answered ${response.status} ${response.statusText}`.trim());
  }
  return payload as T;
}

export const TASKS_KEY = ["tasks"] as const;
export const TASK_PAGE_SIZE = 100;

export function fetchTaskPage(before: string | null, signal?: AbortSignal) {
  const params = new URLSearchParams({ limit: String(TASK_PAGE_SIZE) });
  if (before) params.set("before", before);
  return apiFetch<TaskList>(`/api/tasks?${params}`, { signal });
}
