import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A forwarding tap between the tools and a demo service: it tells a test the moment a request has been handed to the
 * service in full, and can hold one on its way. It does not pass the caller's abort on (the request was delivered; a
 * real network does not take it back), so the service always acts on what it received.
 */
export interface Tap {
  url: string;
  /** Resolves when the next request matching `method` and `path` has been handed to the service in full. */
  delivered(method: string, path: RegExp): Promise<void>;
  /**
   * Holds the next matching request at the tap (on its way: not yet at the service) until `release()`; `answered`:
   * the status of the service's answer to THAT request (even if its caller went away) — not to another one still in
   * flight from an earlier scenario.
   */
  hold(method: string, path: RegExp): { arrived: Promise<void>; release(): void; answered: Promise<number> };
  close(): Promise<void>;
}

export async function startTap(target: string): Promise<Tap> {
  const waiting: { method: string; path: RegExp; resolve: () => void }[] = [];
  const holds: { method: string; path: RegExp; arrived: () => void; released: Promise<void>; answered: (status: number) => void }[] = [];
  const server = http.createServer(async (req, res) => {
    // The whole request first (as the network would carry it), then — if held — wait, then hand it to the service.
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const h = holds.findIndex((w) => w.method === req.method && w.path.test(req.url ?? ""));
    const held = h >= 0 ? holds.splice(h, 1)[0] : undefined;
    if (held) {
      held.arrived();
      await held.released;
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      held?.answered(answer.statusCode ?? 0);
      if (res.destroyed) return void answer.resume();
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    upstream.on("finish", () => {
      const i = waiting.findIndex((w) => w.method === req.method && w.path.test(req.url ?? ""));
      if (i >= 0) waiting.splice(i, 1)[0].resolve();
    });
    upstream.end(Buffer.concat(chunks));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    delivered: (method, path) => new Promise((resolve) => waiting.push({ method, path, resolve })),
    hold(method, path) {
      let arrived!: () => void;
      let release!: () => void;
      let answered!: (status: number) => void;
      const a = new Promise<void>((r) => (arrived = r));
      const status = new Promise<number>((r) => (answered = r));
      holds.push({ method, path, arrived, released: new Promise<void>((r) => (release = r)), answered });
      return { arrived: a, release, answered: status };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
