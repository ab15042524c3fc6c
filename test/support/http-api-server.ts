import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { pipeResponseBody } from "../../lib/http/pipe-response";
import { call } from "./api-client";

/**
 * A real HTTP server (node:http, 127.0.0.1, a free port) in front of the real route handlers: each request
 * becomes a `Request` and goes through `call()` (test/support/api-client.ts), so auth, zod parsing, the domain
 * call and the error mapping run exactly as in the app — and clients in other processes (the SDK, worker
 * processes, the examples) reach them over the network. Streams (SSE) are piped as they are produced; a client
 * that disconnects aborts the handler's request signal.
 */
export interface HttpApiServer {
  readonly url: string;
  /** Every request answered (or still streaming), in order of arrival. */
  readonly requests: readonly { method: string; path: string; headers: Record<string, string>; status: number; at: number }[];
  /** Drops every open connection at once (event streams included) — a network failure as the client sees it. */
  dropConnections(): void;
  /** The next `count` requests whose path starts with `pathPrefix` are answered `status` without reaching the handler. */
  failNext(pathPrefix: string, status: number, count?: number, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startHttpApiServer(): Promise<HttpApiServer> {
  const requests: { method: string; path: string; headers: Record<string, string>; status: number; at: number }[] = [];
  const sockets = new Set<Socket>();
  const faults: { pathPrefix: string; status: number; count: number; headers: Record<string, string> }[] = [];

  const server = createServer((req, res) => void handle(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = (req.method ?? "GET").toUpperCase();
    const url = req.url ?? "/";
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const record = { method, path: url, headers, status: 0, at: Date.now() };
    requests.push(record);

    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const fault = faults.find((f) => url.startsWith(f.pathPrefix) && f.count > 0);
      if (fault) {
        fault.count--;
        record.status = fault.status;
        res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
        res.end(JSON.stringify({ error: { code: "unavailable", message: `injected ${fault.status}` } }));
        return;
      }
      if (method !== "GET" && method !== "POST" && method !== "DELETE") {
        record.status = 405;
        res.writeHead(405).end();
        return;
      }
      let rawBody: string | undefined;
      if (method !== "GET") {
        let raw = "";
        for await (const chunk of req) raw += chunk;
        rawBody = raw;
      }
      // call() adds no token of its own: the client's Authorization header passes through unchanged.
      const response = await call(method, url, { headers, rawBody, signal: abort.signal }).catch((error) => {
        if (String((error as Error).message).startsWith("no route for"))
          return new Response(JSON.stringify({ error: { code: "not_found", message: "no such route" } }), {
            status: 404,
            headers: { "content-type": "application/json" },
          });
        throw error;
      });
      record.status = response.status;
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (!response.body) {
        res.end();
        return;
      }
      await pipeResponseBody(res, response.body, abort.signal);
    } catch (error) {
      if (abort.signal.aborted) return; // the client went away
      console.error("http-api-server: handler failed", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: "adapter failure" } }));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    failNext(pathPrefix, status, count = 1, headers = {}) {
      faults.push({ pathPrefix, status, count, headers });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
