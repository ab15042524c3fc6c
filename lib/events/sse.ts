import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { liveLedger, type StreamFilter } from "./live";
import { positionOfSeq } from "./read-events";

export interface EventStreamOptions extends StreamFilter {
  database: Database;
  /** Resume after this event's sequence number (from Last-Event-ID); "now" starts at the present. */
  afterSeq: number | "now";
  /** Who is asking (the per-principal cap on open streams). */
  principalKey: string;
  signal: AbortSignal;
}

/**
 * A server-sent event stream of ledger events, from this process's live view (lib/events/live.ts): every event
 * after the resume point that the principal may see, in ledger order, exactly once; comment heartbeats keep
 * proxies from dropping a quiet connection. Over the open-stream caps it is a 429 with Retry-After.
 */
export async function ledgerEventStream(options: EventStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const after = options.afterSeq === "now" ? "now" : await positionOfSeq(options.database, options.afterSeq);
  return liveLedger(options.database).subscribe({ after, taskId: options.taskId, ownerId: options.ownerId, principalKey: options.principalKey, signal: options.signal });
}

/** The key the open-stream cap counts by: one person or one token. */
export const streamOwnerKey = (principal: { id: string; kind?: string }) => `${principal.kind ?? "token"}:${principal.id}`;

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
export function resumePoint<F extends number | "now">(request: Request, queryValue: number | undefined, fallback: F): number | F {
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
