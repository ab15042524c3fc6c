/**
 * The browser's client for the app's own JSON API (console, chat, audit): one error type and one fetch.
 * Types only from lib/: no zod and no server code reach the browser through here.
 */
/** An error answer of the API: `{ error: { code, message, details } }` with its HTTP status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
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
    const e = (payload as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null)?.error;
    throw new ApiError(
      response.status,
      e?.code ?? "http_error",
      e?.message ?? `the server answered ${response.status} ${response.statusText}`.trim(),
      e?.details ?? {},
    );
  }
  return payload as T;
}
