/**
 * Valid API objects for the SDK's unit tests (shaped by the shared schemas) and a scriptable fake fetch.
 */
const at = "2026-12-01T10:00:00.000Z";

export const aTask = (over: Record<string, unknown> = {}) => ({
  id: "task_1",
  ownerId: "agent-1",
  conversationId: null,
  title: "order two chairs",
  riskLevel: "low",
  stage: "active",
  intentVersion: 1,
  proposalVersion: 0,
  proposal: null,
  cancelRequestedAt: null,
  cancelReason: null,
  cancelRequestedBy: null,
  cancelIntentVersion: null,
  rowVersion: 1,
  createdAt: at,
  updatedAt: at,
  settledAt: null,
  turnId: null,
  endedAt: null,
  endReason: null,
  ...over,
});

export const aWorkItem = (over: Record<string, unknown> = {}) => ({
  id: "wi_1",
  taskId: "task_1",
  parentWorkItemId: null,
  kind: "local_worker",
  toolName: "example.slow_count",
  correlationId: "count-1",
  input: null,
  status: "queued",
  preparedIntentVersion: 1,
  proposalVersion: null,
  mechanism: "abort_signal",
  commitsEffect: false,
  operationId: null,
  providerRef: null,
  idempotencyKey: "task_1:count-1",
  leaseOwner: null,
  leaseExpiresAt: null,
  heartbeatAt: null,
  attempt: 0,
  partialResult: null,
  partialComplete: null,
  result: null,
  progress: null,
  error: null,
  reconcileDeadline: null,
  rowVersion: 1,
  createdAt: at,
  startedAt: null,
  submittedAt: null,
  finishedAt: null,
  updatedAt: at,
  checkpointPassedAt: null,
  cancelDispatchedAt: null,
  cancelDispatchAction: null,
  cancelAnsweredAt: null,
  cancelWithdrawnAt: null,
  ...over,
});

export const aTaskDetail = (over: Record<string, unknown> = {}) => ({ ...aTask(), workItems: [], resources: [], sideEffects: [], reviewItems: [], ...over });

export const aLedgerEvent = (seq: number, over: Record<string, unknown> = {}) => ({
  seq,
  taskId: "task_1",
  workItemId: null,
  entityType: "task",
  entityId: "task_1",
  actor: "agent:a",
  type: "task.created",
  fromState: null,
  toState: null,
  reason: `event ${seq}`,
  data: null,
  createdAt: at,
  ...over,
});

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const apiError = (status: number, code: string, message = code, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message, ...extra } }, headers);

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Step = Response | Error | ((request: Recorded, signal: AbortSignal | undefined) => Response | Error | Promise<Response>);

/** A fetch that answers from a script, step by step, and records every request. */
export function scriptedFetch(steps: Step[]) {
  const requests: Recorded[] = [];
  const queue = [...steps];
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const request: Recorded = {
      method: init.method ?? "GET",
      url: String(input),
      headers,
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const step = queue.shift();
    if (!step) throw new Error(`unexpected request ${request.method} ${request.url}`);
    const answer = typeof step === "function" ? await step(request, init.signal ?? undefined) : step;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch: fetch as typeof globalThis.fetch, requests, remaining: () => queue.length };
}

/** What Node's fetch throws when no connection could be made (undici: TypeError with a cause carrying a code). */
export const connectionError = (code: string) => Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error(`connect ${code}`), { code }) });

/** A server-sent event stream that delivers `chunks` and then either ends or breaks (a dropped connection). */
export function sseResponse(chunks: string[], end: "close" | "break" = "close") {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (end === "close") controller.close();
      else controller.error(new TypeError("terminated: other side closed"));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

export const sseEvent = (seq: number, over: Record<string, unknown> = {}) => `id: ${seq}\nevent: ledger\ndata: ${JSON.stringify(aLedgerEvent(seq, over))}\n\n`;
