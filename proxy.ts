import { NextResponse, type NextRequest } from "next/server";
import { API_CONTENT_SECURITY_POLICY, commonSecurityHeaders, malformedPathSegment, newNonce, pageContentSecurityPolicy } from "./lib/http/security-headers";

/**
 * Runs before every request (Next 16 calls middleware "proxy"): refuses paths that cannot be decoded, and
 * sets the security headers — for pages a Content-Security-Policy with a fresh nonce that Next.js puts on its
 * own scripts (lib/http/security-headers.ts). Pages are therefore rendered per request (app/layout.tsx).
 *
 * HTTPS is judged from the request's own URL or X-Forwarded-Proto, which the server accepts only from a
 * trusted proxy (scripts/start/serve.ts strips it from anyone else).
 */
export function proxy(request: NextRequest) {
  const url = new URL(request.url);
  const https = url.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  const bad = malformedPathSegment(url.pathname);
  if (bad !== null) {
    return Response.json(
      { error: { code: "bad_request", message: `the path segment "${bad.slice(0, 100)}" is not valid percent-encoded UTF-8`, details: { field: "(path)" } } },
      { status: 400, headers: { ...commonSecurityHeaders(https), "Content-Security-Policy": API_CONTENT_SECURITY_POLICY } },
    );
  }
  const headers = commonSecurityHeaders(https);
  if (url.pathname === "/api" || url.pathname.startsWith("/api/")) {
    const response = NextResponse.next();
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    response.headers.set("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
    return response;
  }
  const nonce = newNonce();
  const policy = pageContentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development", https });
  // Next.js finds the nonce in the request's CSP header while rendering and adds it to its scripts.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  requestHeaders.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Everything but the build's static files (they get nosniff and the rest from next.config.js headers()).
  matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"],
};
