import type { IncomingMessage } from "node:http";

/**
 * Reads a request body up to `limit` bytes. Past it, the rest is read and thrown away — up to `drainBytes` more or
 * for `drainMs` — before the caller answers 413: a client still sending when the server answers and closes gets a
 * reset (EPIPE) instead of the answer (issue 24: a 20 MB body to /api/workers/claim). Draining a few megabytes on
 * a local network costs milliseconds; a sender that keeps going past the bounds is cut off (`drained: false`).
 */
export type BodyRead = { tooLarge: false; body: Buffer } | { tooLarge: true; received: number; drained: boolean };

export async function readBodyWithin(
  req: IncomingMessage,
  limit: number,
  { drainBytes = 64 * 1024 * 1024, drainMs = 10_000 }: { drainBytes?: number; drainMs?: number } = {},
): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let received = 0;
  let deadline = Infinity;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received <= limit) {
      chunks.push(chunk);
      continue;
    }
    if (deadline === Infinity) {
      chunks.length = 0;
      deadline = Date.now() + drainMs;
    }
    if (received > limit + drainBytes || Date.now() > deadline) return { tooLarge: true, received, drained: false };
  }
  return received > limit ? { tooLarge: true, received, drained: true } : { tooLarge: false, body: Buffer.concat(chunks) };
}

/** A size for people: 1 MiB, 20 MiB, 512 KiB, 900 bytes. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}
