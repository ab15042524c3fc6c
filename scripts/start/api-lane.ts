import type { IncomingMessage, ServerResponse } from "node:http";
import { matchApiRoute, type Method } from "../../app/api/routes";
import { MAX_BODY_BYTES } from "../../lib/api/input-guard";
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
    send(res, 400, security, { error: { code: "bad_request", message: `the path segment "${bad.slice(0, 100)}" is not valid percent-encoded UTF-8`, details: { field: "(path)" } } });
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
    // Bodies are read up to just past the limit (the route answers 413 for more; reading the rest would only cost).
    const body = method === "GET" || method === "HEAD" ? undefined : await readLimited(req, MAX_BODY_BYTES + 1);
    if (body && body.length > MAX_BODY_BYTES) {
      // The answer is a 413; what the client is still sending is discarded (so that it can read the answer),
      // and the connection is not kept.
      res.shouldKeepAlive = false;
      req.resume();
    }
    const response = await handler(new Request(url, { method, headers, body: body as Uint8Array<ArrayBuffer> | undefined, signal: abort.signal }), { params: Promise.resolve(found.params) });
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

function send(res: ServerResponse, status: number, headers: Record<string, string>, json: unknown) {
  res.writeHead(status, { ...headers, "Content-Type": "application/json" });
  res.end(JSON.stringify(json));
}

async function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks);
}
