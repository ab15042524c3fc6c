import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "./signature";
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER } from "./states";

/**
 * A webhook receiver for tests (and a worked example for people writing one): it reads the raw body,
 * checks the Stopline-Signature with verifySignature, records every request, and answers with the
 * statuses it was told to (then 200).
 */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  deliveryId: string | undefined;
  /** The signature verified with the receiver's secret (null: no secret configured). */
  verified: boolean | null;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Statuses to answer with, in order, before answering 200. */
  failWith(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { secret?: string; path?: string } = {}): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const queue: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        /* recorded raw */
      }
      const signature = req.headers[SIGNATURE_HEADER.toLowerCase()];
      requests.push({
        path: req.url ?? "/",
        headers: req.headers,
        raw,
        body,
        deliveryId: req.headers[DELIVERY_ID_HEADER.toLowerCase()] as string | undefined,
        verified: options.secret ? verifySignature(options.secret, typeof signature === "string" ? signature : null, raw, 300) : null,
        at: Date.now(),
      });
      const status = queue.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "receiver is failing on purpose");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/hooks/stopline"}`,
    requests,
    failWith: (...statuses) => queue.push(...statuses),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
