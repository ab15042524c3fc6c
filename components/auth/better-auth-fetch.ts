/**
 * A same-origin POST to one of Better Auth's own endpoints (/api/auth/*), as the account pages use them.
 * Better Auth answers errors as `{ code, message }`; a 429 carries `X-Retry-After` (seconds). Never throws on
 * an HTTP error: the caller maps each answer to words. Throws only when Stopline could not be reached.
 */
export interface AuthAnswer {
  ok: boolean;
  status: number;
  /** Better Auth's error code (e.g. INVALID_PASSWORD), when it sent one. */
  code: string | null;
  message: string | null;
  /** Seconds to wait before trying again (429 only). */
  retryAfterS: number | null;
}

export async function postToBetterAuth(path: `/${string}`, body: Record<string, unknown>): Promise<AuthAnswer> {
  const response = await fetch(`/api/auth${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
  const retry = Number(response.headers.get("x-retry-after"));
  return {
    ok: response.ok,
    status: response.status,
    code: typeof data?.code === "string" ? data.code : null,
    message: typeof data?.message === "string" ? data.message : null,
    retryAfterS: response.status === 429 && Number.isFinite(retry) && retry > 0 ? Math.ceil(retry) : null,
  };
}

/** The words for an answer that no field explains: a session that ended, too many attempts, a server error. */
export function explainAuthAnswer(answer: AuthAnswer, what: string): string {
  if (answer.status === 401) return `${what} failed: your session has ended. Sign in again, then try once more.`;
  if (answer.status === 403) return `${what} was refused: this request did not come from Stopline's own page. Reload the page and try again.`;
  if (answer.status === 429) {
    const wait = answer.retryAfterS ? `${answer.retryAfterS} second${answer.retryAfterS === 1 ? "" : "s"}` : "a few seconds";
    return `Too many attempts. Wait ${wait} and try again.`;
  }
  const detail = answer.message ? `: ${answer.message.replace(/\.?$/, ".")}` : ` (HTTP ${answer.status}).`;
  return `${what} failed${detail}`;
}
