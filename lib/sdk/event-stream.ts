import { contract, type RouteContract } from "../api/contract";
import * as s from "../api/schemas";
import { readEventStream } from "../events/read-sse";
import type { EventsOptions, LedgerEventRecord } from "./client-types";
import { errorFromBody, InvalidResponseError, NetworkError, SdkErrorCode, StoplineError } from "./errors";
import { backoffDelay, isRetryableStatus, parseRetryAfter } from "./retry";
import { describeNetworkError, type Transport } from "./transport";

/** Why a connection was ended by the idle watch (no byte for idleTimeoutMs). */
class Idle {}

/**
 * The ledger's events as an async iterator, in order, each exactly once. A dropped connection is resumed
 * with Last-Event-ID = the last event received (the server replays what was missed), after a backoff; the
 * iterator ends when `signal` aborts or the caller breaks out of the loop.
 *
 * Limitation: on the all-tasks stream without `lastEventId`, the server starts at "now"; a connection that
 * drops before the first event arrived resumes at the new "now" (pass `lastEventId: 0`, or a known `seq`,
 * for an exact history). A task stream always starts at the task's first event.
 */
export async function* ledgerEvents(transport: Transport, options: EventsOptions = {}): AsyncGenerator<LedgerEventRecord, void, undefined> {
  const route: RouteContract = options.taskId ? contract.taskEvents : contract.allEvents;
  const label = `${route.method} ${route.path}`;
  const url = transport.url(route.path, options.taskId ? { taskId: options.taskId } : undefined, undefined);
  const maxReconnects = options.maxReconnects ?? 20;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  const signal = options.signal;
  let cursor = options.lastEventId;
  // Ledger order is not always seq order (on PostgreSQL it follows the writing transactions): the resume point
  // is the last event received, and a repeat is recognised by its id, never by comparing sequence numbers.
  const seen = new Set<number>();
  let failures = 0;

  while (!signal?.aborted) {
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let idleTimer: ReturnType<typeof setInterval> | undefined;
    let failure: StoplineError | null = null;
    let retryAfterMs: number | null = null;
    try {
      let response: Response;
      try {
        response = await transport.fetch(url, {
          method: "GET",
          headers: {
            accept: "text/event-stream",
            authorization: transport.authorization(),
            ...(cursor !== undefined ? { "last-event-id": String(cursor) } : {}),
          },
          signal: connection.signal,
        });
      } catch (error) {
        if (signal?.aborted) return;
        throw new NetworkError(`${label}: ${describeNetworkError(error)}`, { status: null, code: SdkErrorCode.networkError, route: label, cause: error });
      }
      if (!response.ok) {
        const error = errorFromBody(response.status, await response.text().catch(() => ""), label);
        if (!isRetryableStatus(response.status)) throw error; // 401, 403, 404 …: reconnecting will not help
        retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        throw error;
      }
      const type = response.headers.get("content-type") ?? "";
      if (!/^text\/event-stream\b/i.test(type) || !response.body) {
        throw new InvalidResponseError(`${label} answered ${response.status} with "${type || "no content type"}", not an event stream`, {
          status: response.status,
          code: SdkErrorCode.invalidResponse,
          route: label,
        });
      }
      // Half-open connections: any byte (the server's heartbeat comments included) proves the stream alive.
      let lastByteAt = Date.now();
      const watched = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            lastByteAt = Date.now();
            controller.enqueue(chunk);
          },
        }),
      );
      idleTimer = setInterval(
        () => {
          if (Date.now() - lastByteAt > idleTimeoutMs) connection.abort(new Idle());
        },
        Math.min(idleTimeoutMs, 5_000),
      );
      for await (const message of readEventStream(watched)) {
        if (message.event === "error") break; // the server could not read the ledger: reconnect and resume
        if (message.event !== "ledger") continue;
        const event = parseEvent(message.data, label, response.status);
        if (seen.has(event.seq)) continue; // never twice, whatever the server resends
        seen.add(event.seq);
        if (seen.size > 10_000) seen.delete(seen.values().next().value!);
        cursor = event.seq;
        failures = 0;
        yield event;
      }
      // The stream ended (server restart, proxy timeout, the server's error event): reconnect and resume.
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof InvalidResponseError) throw error;
      if (error instanceof StoplineError && error.status !== null && !isRetryableStatus(error.status)) throw error;
      failure =
        error instanceof StoplineError
          ? error
          : new NetworkError(
              `${label}: the event stream broke (${connection.signal.reason instanceof Idle ? `no data for ${idleTimeoutMs} ms` : describeNetworkError(error)})`,
              {
                status: null,
                code: SdkErrorCode.networkError,
                route: label,
                cause: error,
              },
            );
    } finally {
      clearInterval(idleTimer);
      signal?.removeEventListener("abort", onAbort);
      connection.abort(); // releases the connection when the caller stops iterating
    }
    if (signal?.aborted) return;
    failures++;
    if (failure && failures > maxReconnects) {
      failure.attempts = failures;
      throw failure;
    }
    if (retryAfterMs !== null && retryAfterMs > transport.retry.maxRetryAfterMs) throw failure!;
    try {
      await transport.retry.sleep(backoffDelay(Math.max(0, failures - 1), transport.retry, retryAfterMs), signal);
    } catch {
      return; // aborted while waiting
    }
  }
}

function parseEvent(data: string, label: string, status: number): LedgerEventRecord {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new InvalidResponseError(`${label}: an event's data is not JSON`, {
      status,
      code: SdkErrorCode.invalidResponse,
      route: label,
      details: { data: data.slice(0, 500) },
    });
  }
  const parsed = s.LedgerEventRecordSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidResponseError(
      `${label}: an event breaks the contract: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
      {
        status,
        code: SdkErrorCode.invalidResponse,
        route: label,
        details: { issues: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })) },
      },
    );
  }
  return parsed.data;
}
