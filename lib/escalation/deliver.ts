import type { Database } from "../db/client";
import { DestinationRefusedError, guardedPost } from "./destination";
import { signatureHeader } from "./signature";
import { DELIVERY_ID_HEADER, DeliveryKind, DeliveryStatus, SIGNATURE_HEADER } from "./states";

/**
 * Sending one pending delivery: claim the attempt (compare-and-set on the attempt count, so two deliverers
 * never send the same attempt), POST the stored body, record the answer. A 2xx is delivered; anything
 * else — another status, a redirect (not followed: a POST must not turn into a GET elsewhere), a timeout,
 * a refused connection — is retried with exponential backoff until `maxAttempts`, then failed. A destination
 * that is not allowed (an internal address, see destination.ts) fails at once: the rule, not the network,
 * refused it, and retrying would not change that.
 *
 * At-least-once: if this process dies after sending and before recording, the claim expires and the
 * delivery is sent again with the same Stopline-Delivery-Id — receivers de-duplicate by it.
 */

export interface DeliveryOptions {
  /** Attempts before a delivery is failed (default 5; STOPLINE_ESCALATION_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Wait after the first failed attempt; doubled after each further one (default 1 s; STOPLINE_ESCALATION_BACKOFF_MS). */
  backoffMs: number;
  /** Upper bound of one wait (default 5 min). */
  maxBackoffMs: number;
  /** Per request (default 10 s; STOPLINE_ESCALATION_TIMEOUT_MS). */
  timeoutMs: number;
  /** Sends one POST; only to allowed destinations, redirects never followed (destination.ts). */
  post: typeof guardedPost;
}

export function deliveryOptionsFromEnv(overrides: Partial<DeliveryOptions> = {}): DeliveryOptions {
  const num = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isFinite(v) && v > 0 ? v : fallback;
  };
  return {
    maxAttempts: num("STOPLINE_ESCALATION_MAX_ATTEMPTS", 5),
    backoffMs: num("STOPLINE_ESCALATION_BACKOFF_MS", 1_000),
    maxBackoffMs: 5 * 60_000,
    timeoutMs: num("STOPLINE_ESCALATION_TIMEOUT_MS", 10_000),
    post: guardedPost,
    ...overrides,
  };
}

/** The wait after failed attempt `attempt` (1-based): backoff, 2×, 4× … capped. */
export const backoffDelay = (attempt: number, o: Pick<DeliveryOptions, "backoffMs" | "maxBackoffMs">) =>
  Math.min(o.maxBackoffMs, o.backoffMs * 2 ** Math.max(0, attempt - 1));

export interface AttemptRecord {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export type AttemptResult = "delivered" | "retry" | "failed" | "waiting" | "skipped";

type DueDelivery = Awaited<ReturnType<typeof dueDeliveries>>[number];

/** Pending deliveries whose next attempt is due, oldest due first. */
export function dueDeliveries(database: Database, now: Date, limit: number) {
  return database.prisma.escalationDelivery.findMany({
    where: { status: DeliveryStatus.pending, nextAttemptAt: { lte: now } },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    take: limit,
    include: { channel: true },
  });
}

/** The earliest time a pending delivery is due (null: none pending). */
export async function nextDueAt(database: Database): Promise<Date | null> {
  const row = await database.prisma.escalationDelivery.findFirst({
    where: { status: DeliveryStatus.pending },
    orderBy: { nextAttemptAt: "asc" },
    select: { nextAttemptAt: true },
  });
  return row?.nextAttemptAt ?? null;
}

export async function attemptDelivery(database: Database, delivery: DueDelivery, options: DeliveryOptions): Promise<AttemptResult> {
  const prisma = database.prisma;
  const pendingAt = { id: delivery.id, status: DeliveryStatus.pending, attempts: delivery.attempts };

  // A close-out follows its escalation: never let a receiver see "closed" before "escalated".
  // It waits until the escalation's next attempt, or until the escalation ends and releases it (below), so
  // waiting close-outs do not crowd the due list.
  if (delivery.kind === DeliveryKind.closedOut) {
    const before = await prisma.escalationDelivery.findFirst({
      where: { channelId: delivery.channelId, reviewItemId: delivery.reviewItemId, kind: DeliveryKind.escalated, status: DeliveryStatus.pending },
      select: { nextAttemptAt: true },
    });
    if (before) {
      await prisma.escalationDelivery.updateMany({
        where: pendingAt,
        data: { nextAttemptAt: new Date(Math.max(Date.now(), before.nextAttemptAt.getTime()) + 1) },
      });
      return "waiting";
    }
  }
  if (!delivery.channel.active) {
    const moved = await prisma.escalationDelivery.updateMany({
      where: pendingAt,
      data: { status: DeliveryStatus.failed, lastError: "the channel was deactivated before delivery" },
    });
    return moved.count ? "failed" : "skipped";
  }

  // Claim this attempt; while it runs, nextAttemptAt is the claim's expiry (a crashed sender's attempt is retried then).
  const startedAt = new Date();
  const attempt = delivery.attempts + 1;
  const claimed = await prisma.escalationDelivery.updateMany({
    where: { ...pendingAt, nextAttemptAt: { lte: startedAt } },
    data: { attempts: attempt, lastAttemptAt: startedAt, nextAttemptAt: new Date(startedAt.getTime() + options.timeoutMs + 30_000) },
  });
  if (!claimed.count) return "skipped";

  const body = JSON.stringify(delivery.payload);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Stopline-Escalations/1",
    [DELIVERY_ID_HEADER]: delivery.id,
    "Stopline-Event":
      delivery.kind === DeliveryKind.closedOut ? "review_item.closed_out" : delivery.kind === DeliveryKind.test ? "stopline.test" : "review_item.escalated",
    "Stopline-Attempt": String(attempt),
  };
  if (delivery.channel.secret) headers[SIGNATURE_HEADER] = signatureHeader(delivery.channel.secret, body);

  let status: number | null = null;
  let error: string | null = null;
  let retryAfterMs: number | null = null;
  let refused = false;
  try {
    const response = await options.post(delivery.channel.url, { headers, body, signal: AbortSignal.timeout(options.timeoutMs) });
    status = response.status;
    const text = await response.text().catch(() => "");
    if (status < 200 || status >= 300) {
      const location = response.headers.get("location");
      error =
        status >= 300 && status < 400
          ? `HTTP ${status}: redirect${location ? ` to ${location}` : ""} not followed`
          : `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 300)}` : ""}`;
      retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    }
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    refused = e instanceof DestinationRefusedError;
    error =
      err.name === "TimeoutError" || err.name === "AbortError"
        ? `no answer within ${options.timeoutMs} ms`
        : [err.message, err.cause?.code ?? err.cause?.message].filter(Boolean).join(": ");
  }
  const finishedAt = new Date();
  const log = [
    ...((delivery.attemptLog as AttemptRecord[] | null) ?? []),
    { attempt, at: startedAt.toISOString(), status, error, durationMs: finishedAt.getTime() - startedAt.getTime() },
  ];
  const mine = { id: delivery.id, status: DeliveryStatus.pending, attempts: attempt }; // fenced by our attempt number

  // An escalation that reached its end releases a close-out waiting behind it.
  const releaseCloseOut = () =>
    delivery.kind === DeliveryKind.escalated
      ? prisma.escalationDelivery.updateMany({
          where: {
            channelId: delivery.channelId,
            reviewItemId: delivery.reviewItemId,
            kind: DeliveryKind.closedOut,
            status: DeliveryStatus.pending,
            nextAttemptAt: { gt: finishedAt },
          },
          data: { nextAttemptAt: finishedAt },
        })
      : null;
  if (!error) {
    const moved = await prisma.escalationDelivery.updateMany({
      where: mine,
      data: { status: DeliveryStatus.delivered, deliveredAt: finishedAt, responseStatus: status, attemptLog: log as never },
    });
    if (moved.count) await releaseCloseOut();
    return "delivered";
  }
  if (refused || attempt >= options.maxAttempts) {
    const lastError = refused ? `${error} (not retried)` : `${error} (gave up after ${attempt} attempts)`;
    const moved = await prisma.escalationDelivery.updateMany({
      where: mine,
      data: { status: DeliveryStatus.failed, responseStatus: status, lastError, attemptLog: log as never },
    });
    if (moved.count) await releaseCloseOut();
    return "failed";
  }
  const wait = Math.min(options.maxBackoffMs, Math.max(backoffDelay(attempt, options), retryAfterMs ?? 0));
  await prisma.escalationDelivery.updateMany({
    where: mine,
    data: { nextAttemptAt: new Date(finishedAt.getTime() + wait), responseStatus: status, lastError: error, attemptLog: log as never },
  });
  return "retry";
}

/** Retry-After in seconds or as an HTTP date (429/503 answers), in ms. */
function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
