import type { IncomingMessage, ServerResponse } from "node:http";
import { contract } from "../api/contract";
import { errorResponse } from "../api/http-errors";
import { admitRequest } from "../api/route";
import { AppError, ErrorCode } from "../errors";
import { API_CONTENT_SECURITY_POLICY, commonSecurityHeaders, malformedPathSegment } from "../http/security-headers";
import { liveLedger } from "./live";
import { eventStreamOptions, SSE_HEADERS } from "./sse";

/**
 * The server's own lane for event streams (`npm start` → scripts/start/serve.ts): GET /api/events and
 * GET /api/tasks/{id}/events answered on the Node response itself, each frame one `res.write`, instead of a web
 * ReadableStream piped through Next.js (several promise hops per frame per socket — most of the server's work
 * when a thousand people follow the ledger). Same checks as the route handlers: admitRequest (authentication,
 * role, zod), eventStreamOptions (ownership, resume point), the live view's caps; same headers, same errors.
 */
const ALL = /^\/api\/events$/;
const TASK = /^\/api\/tasks\/([^/]+)\/events$/;

export function isEventStreamRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET") return false;
  const path = (req.url ?? "/").split("?")[0];
  return ALL.test(path) || TASK.test(path);
}

export async function serveEventStreamDirectly(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const https = req.headers["x-forwarded-proto"] === "https"; // set only by a trusted proxy (serve.ts rewrites it)
  const security = { ...commonSecurityHeaders(https), "Content-Security-Policy": API_CONTENT_SECURITY_POLICY };
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  try {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    const bad = malformedPathSegment(url.pathname);
    if (bad !== null)
      throw new AppError(ErrorCode.badRequest, `the path segment "${bad.slice(0, 100)}" is not valid percent-encoded UTF-8`, { field: "(path)" });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(url, { method: "GET", headers, signal: abort.signal });
    const task = TASK.exec(url.pathname);
    const route = task ? contract.taskEvents : contract.allEvents;
    const { database, principal, query } = await admitRequest(route, request, task ? { taskId: decodeURIComponent(task[1]) } : {});
    const options = await eventStreamOptions(database, principal, {
      taskId: task ? decodeURIComponent(task[1]) : undefined,
      lastEventIdHeader: request.headers.get("last-event-id"),
      lastEventIdQuery: (query as { lastEventId?: number } | undefined)?.lastEventId,
    });
    const live = liveLedger(database);
    await live.ready;
    if (abort.signal.aborted) return;
    live.admit(options); // 429 past the caps; nothing awaits from here to attach, so the count cannot go stale
    res.writeHead(200, { ...SSE_HEADERS, ...security });
    res.flushHeaders();
    live.attach(
      { ...options, signal: abort.signal },
      {
        write: (frame) => void res.write(frame),
        backlog: () => res.writableLength,
        end: () => res.end(),
      },
    );
  } catch (error) {
    const response = errorResponse(error);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.writeHead(response.status, { ...Object.fromEntries(response.headers.entries()), ...security });
    res.end(Buffer.from(await response.arrayBuffer()));
  }
}
