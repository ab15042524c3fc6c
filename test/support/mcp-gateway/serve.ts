import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Serves a web-standard `(Request) => Response` handler on 127.0.0.1 (a free port); a client disconnect aborts the request's signal. */
export async function serveFetch(handle: (request: Request) => Promise<Response>): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
      signal: abort.signal,
    });
    try {
      const response = await handle(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        const reader = response.body.getReader();
        abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          res.write(value);
        }
      }
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
