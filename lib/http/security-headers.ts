/**
 * The security headers of every response (issue 11, item 6). Pages get a Content-Security-Policy with a fresh
 * nonce per request: Next.js reads the nonce from the request's CSP header and puts it on its own scripts
 * (framework, page bundles, inline hydration data), so no other script can run — an injected `<script>` or
 * inline handler has no nonce. `'strict-dynamic'` lets those trusted scripts load the chunks they need.
 *
 * Styles allow 'unsafe-inline' on purpose: React renders `style` attributes (the timeline's bars), which a
 * nonce cannot cover, and a style cannot run code. API responses (JSON, event streams) get a policy that
 * allows nothing at all. Every response may not be framed by another site (`frame-ancestors 'none'`,
 * X-Frame-Options for old browsers), is never content-sniffed, leaks no path in Referer to other sites, and —
 * when it was served over HTTPS — tells the browser to keep using HTTPS (HSTS).
 *
 * This file is used by proxy.ts (Next 16's name for middleware) and imports nothing server-only.
 */
export interface PolicyOptions {
  nonce: string;
  /** Development: React's dev build needs eval for its error overlays. Never in production. */
  dev?: boolean;
  /** Served over HTTPS: ask the browser to upgrade any http: subresource. */
  https?: boolean;
}

export function pageContentSecurityPolicy({ nonce, dev = false, https = false }: PolicyOptions): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** JSON and event streams are never rendered as documents: nothing may load, run or frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** One year, subdomains included (no preload: that is a decision for whoever owns the domain). */
export const HSTS = "max-age=31536000; includeSubDomains";

/** Headers for every response, whatever it is. */
export function commonSecurityHeaders(https: boolean): Record<string, string> {
  return {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    ...(https ? { "Strict-Transport-Security": HSTS } : {}),
  };
}

/** A nonce: 16 random bytes, base64 (fits CSP's nonce-source grammar). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * A path whose percent-encoding does not decode to UTF-8 (`/api/tasks/%C0%AE`: an overlong encoding of ".")
 * cannot name anything: the segment that fails, or null when every segment decodes.
 */
export function malformedPathSegment(rawPathname: string): string | null {
  for (const segment of rawPathname.split("/")) {
    try {
      decodeURIComponent(segment);
    } catch {
      return segment;
    }
  }
  return null;
}
