import type { IncomingMessage, ServerResponse } from "node:http";
import { matchApiRoute, type Method } from "../../app/api/routes";
import { MAX_BODY_BYTES } from "../../lib/api/input-guard";
import { errorResponse } from "../../lib/api/http-errors";
import { bodyTooLarge } from "../../lib/api/route";
import { readBodyWithin } from "../../lib/http/read-body";
import { pipeResponseBody } from "../../lib/http/pipe-response";
import { API_CONTENT_SECURITY_POLICY, commonSecurityHeaders, malformedPathSegment } from "../../lib/http/security-headers";

/**
 * The server's lane for the HTTP API: a request under /api goes straight to its route handler (the same function
 * Next.js would call, found in app/api/routes.ts) instead of through Next.js's router — which costs several times
 * the handler's own work on a small request (measured: ~6 ms of CPU per POST /api/tasks through Next.js against
 * ~2 ms direct, on these machines). What Next.js's proxy (proxy.ts) does for the API is done here the same way:
 * a path that is not valid percent-encoded UTF-8 is a 400, and every answer gets the API's security headers.
 * A path with no API route is left to Next.js (false), which answers it as before.
 */
export async function serveApiDirectly(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  if (!url.pathname.startsWith("/api/")) return false;
  const https = req.headers["x-forwarded-proto"] === "https"; // set only by a trusted proxy (serve.ts rewrites it)
  const security = { ...commonSecurityHeaders(https), "Content-Security-Policy": API_CONTENT_SECURITY_POLICY };
  const bad = malformedPathSegment(url.pathname);
  if (bad !== null) {
    send(res, 400, security, {
      error: { code: "bad_request", message: `the path segment "${bad.slice(0, 100)}" is not valid percent-encoded UTF-8`, details: { field: "(path)" } },
    });
    return true;
  }
  const found = matchApiRoute(url.pathname);
  if (!found) return false;
  const method = (req.method ?? "GET").toUpperCase();
  const abort = new AbortController();
  // Only a client that went away before the answer ended aborts (an abort builds a DOMException: not for every request).
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  try {
    const handler = (await found.route.load())[method as Method];
    if (!handler) {
      send(res, 405, security, { error: { code: "method_not_allowed", message: `${method} is not a method of ${url.pathname}` } });
      return true;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    // A body past the limit is a 413 naming it, answered once the client has finished sending (or was cut off):
    // answering while it still sends would reset its connection before it reads the answer (lib/http/read-body.ts).
    let body: Buffer | undefined;
    if (method !== "GET" && method !== "HEAD") {
      const read = await readBodyWithin(req, MAX_BODY_BYTES);
      if (read.tooLarge) {
        if (!read.drained) res.shouldKeepAlive = false;
        const response = errorResponse(bodyTooLarge(read.drained ? read.received : undefined));
        send(res, response.status, security, await response.json());
        return true;
      }
      body = read.body;
    }
    const response = await handler(new Request(url, { method, headers, body: body as Uint8Array<ArrayBuffer> | undefined, signal: abort.signal }), {
      params: Promise.resolve(found.params),
    });
    const responseHeaders: Record<string, string | string[]> = { ...security };
    response.headers.forEach((value, key) => {
      if (key === "set-cookie") return;
      responseHeaders[key] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) responseHeaders["set-cookie"] = cookies;
    if (!response.body) {
      res.writeHead(response.status, responseHeaders);
      res.end();
      return true;
    }
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
      // A whole answer (JSON): headers and body in one write.
      const whole = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, { ...responseHeaders, "content-length": String(whole.length) });
      res.end(whole);
      return true;
    }
    res.writeHead(response.status, responseHeaders);
    await pipeResponseBody(res, response.body, abort.signal);
  } catch (error) {
    if (abort.signal.aborted) return true; // the client went away
    console.error(`${method} ${url.pathname} failed in the API lane`, error);
    if (!res.headersSent) send(res, 500, security, { error: { code: "internal", message: "internal error (details are in the server log)" } });
    else res.end();
  }
  return true;
}

/**
 * `Expect: 100-continue` (curl sends it for bodies over 1 MiB): a declared length past the limit is answered 413 at
 * once, before the client sends the body; anything else is told to go on.
 */
export function answerExpectContinue(req: IncomingMessage, res: ServerResponse): boolean {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (!(req.url ?? "").startsWith("/api/") || !(declared > MAX_BODY_BYTES)) return false;
  const https = req.headers["x-forwarded-proto"] === "https";
  const response = errorResponse(bodyTooLarge(declared));
  res.shouldKeepAlive = false;
  void response
    .json()
    .then((json) => send(res, response.status, { ...commonSecurityHeaders(https), "Content-Security-Policy": API_CONTENT_SECURITY_POLICY }, json));
  return true;
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, json: unknown) {
  res.writeHead(status, { ...headers, "Content-Type": "application/json" });
  res.end(JSON.stringify(json));
}
