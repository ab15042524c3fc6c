import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { assertTaskAccess, ownerScope } from "../auth/ownership";
import type { Principal } from "../auth/tokens";
import { getTaskDetail } from "../ledger/queries";
import type { SubscribeOptions } from "./live";
import { positionOfSeq } from "./read-events";

/**
 * What a request for an event stream asks for, checked: the whole ledger as the principal may see it (a user:
 * their own tasks), or one task's (404 unless they may see it); from the resume point (Last-Event-ID header,
 * else the lastEventId query parameter; else a task's stream replays its whole history and the ledger's starts
 * at the present). Both ways a stream is served use it — the route handlers (a web ReadableStream through
 * Next.js) and the server's direct lane (lib/events/direct-lane.ts).
 */
export async function eventStreamOptions(
  database: Database,
  principal: Principal,
  input: { taskId?: string; lastEventIdHeader: string | null; lastEventIdQuery: number | undefined },
): Promise<Omit<SubscribeOptions, "signal">> {
  if (input.taskId) {
    await assertTaskAccess(database, principal, input.taskId);
    await getTaskDetail(database, input.taskId); // 404 for an unknown task, before the stream opens
  }
  const afterSeq = resumePoint(input.lastEventIdHeader, input.lastEventIdQuery, input.taskId ? 0 : "now");
  return {
    after: afterSeq === "now" ? "now" : await positionOfSeq(database, afterSeq),
    taskId: input.taskId,
    ownerId: input.taskId ? undefined : ownerScope(principal),
    principalKey: streamOwnerKey(principal),
  };
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
export function resumePoint<F extends number | "now">(header: string | null, queryValue: number | undefined, fallback: F): number | F {
  if (header !== null && header.trim() !== "") {
    const n = Number(header);
    if (!Number.isInteger(n) || n < 0) {
      throw new AppError(ErrorCode.badRequest, `Last-Event-ID must be a ledger sequence number, not "${header}"`, { field: "Last-Event-ID" });
    }
    return n;
  }
  return queryValue ?? fallback;
}
