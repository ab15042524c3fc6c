/**
 * Where to go after signing in: only a path on this site (issue 11, item 4 — `/sign-in?next=/\evil.example/`
 * sent the browser to another origin, because browsers read `/\` like `//`, the start of another host).
 *
 * Accepted: a path that starts with a single "/" and, resolved against this site, stays on it. Refused (null):
 * anything absolute (`https://…`, `javascript:…`), protocol-relative (`//host`), with a backslash anywhere,
 * with control characters or whitespace (browsers strip some of them and then see `//`), or too long.
 * Imports nothing: used by the sign-in page (server) and the form (browser).
 */
const PROBE_ORIGIN = "http://stopline.invalid";

export function safeNextPath(next: string | null | undefined): string | null {
  if (!next || next.length > 2_000) return null;
  if (!next.startsWith("/") || next.startsWith("//")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is this check's purpose
  if (/[\\\u0000-\u0020\u007f-\u009f\u2028\u2029\ufeff]/.test(next)) return null;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PROBE_ORIGIN) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}
