import type { Database } from "../db/client";
import { listEventsAfter } from "../ledger/queries";
import { AppError, ErrorCode } from "../errors";
import { onCommitted } from "./bus";

export interface EventStreamOptions {
  database: Database;
  /** Only this task's events (otherwise all). */
  taskId?: string;
  /** Resume after this sequence number (from Last-Event-ID); events after it are replayed in order. */
  afterSeq: number;
  signal: AbortSignal;
  /** How often to look for events committed by other processes. */
  pollMs?: number;
  /** Comment heartbeat interval (proxies and browsers drop silent connections). */
  heartbeatMs?: number;
}

/**
 * A server-sent event stream of ledger events. The events table is the source: the stream delivers every
 * event with seq > cursor, in order, exactly once, and advances the cursor only past events it sent. An
 * in-process commit notification wakes it at once; polling covers commits made by other processes.
 */
export function ledgerEventStream(options: EventStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pollMs = options.pollMs ?? Number(process.env.STOPLINE_SSE_POLL_MS ?? 500);
  const heartbeatMs = options.heartbeatMs ?? Number(process.env.STOPLINE_SSE_HEARTBEAT_MS ?? 15_000);
  let cursor = options.afterSeq;
  let closed = false;
  let pumping: Promise<void> | null = null;
  let again = false;
  const cleanups: (() => void)[] = [];

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const close = () => {
        if (closed) return;
        closed = true;
        for (const c of cleanups) c();
        try {
          controller.close();
        } catch {
          /* already closed by the client */
        }
      };

      // One pump at a time; a wake-up during a pump schedules exactly one more.
      const pump = (): Promise<void> => {
        if (pumping) {
          again = true;
          return pumping;
        }
        pumping = (async () => {
          do {
            again = false;
            for (;;) {
              const events = await listEventsAfter(options.database, cursor, { taskId: options.taskId, limit: 500 });
              if (closed) return;
              for (const e of events) {
                send(`id: ${e.seq}\nevent: ledger\ndata: ${JSON.stringify(e)}\n\n`);
                cursor = e.seq;
              }
              if (events.length < 500) break;
            }
          } while (again && !closed);
        })()
          .catch((error) => {
            send(`event: error\ndata: ${JSON.stringify({ message: "reading the ledger failed; reconnect to resume" })}\n\n`);
            console.error("SSE pump failed", error);
            close();
          })
          .finally(() => {
            pumping = null;
          });
        return pumping;
      };

      send(`retry: 1000\n: connected after ${cursor}\n\n`);
      const unsubscribe = onCommitted((events) => {
        if (events.some((e) => !options.taskId || e.taskId === options.taskId)) void pump();
      });
      const poll = setInterval(() => void pump(), pollMs);
      const heartbeat = setInterval(() => send(`: heartbeat ${new Date().toISOString()}\n\n`), heartbeatMs);
      cleanups.push(unsubscribe, () => clearInterval(poll), () => clearInterval(heartbeat));
      options.signal.addEventListener("abort", close, { once: true });
      void pump();
    },
    cancel() {
      closed = true;
      for (const c of cleanups) c();
    },
  });
}

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

/**
 * The resume point: the Last-Event-ID header wins over the lastEventId query parameter; without either,
 * `fallback` (a task stream replays the task's whole history; the global stream starts at the present).
 */
export function resumePoint(request: Request, queryValue: number | undefined, fallback: number): number {
  const header = request.headers.get("last-event-id");
  if (header !== null && header.trim() !== "") {
    const n = Number(header);
    if (!Number.isInteger(n) || n < 0) {
      throw new AppError(ErrorCode.badRequest, `Last-Event-ID must be a ledger sequence number, not "${header}"`, { field: "Last-Event-ID" });
    }
    return n;
  }
  return queryValue ?? fallback;
}
