import type { ServerResponse } from "node:http";

/**
 * Writes a web Response's body to a Node response as it comes (event streams included), honouring backpressure;
 * the body is cancelled when `signal` aborts (the client went away). Headers must already be written.
 */
export async function pipeResponseBody(res: ServerResponse, body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
  res.flushHeaders();
  const reader = body.getReader();
  signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
  }
  res.end();
}
