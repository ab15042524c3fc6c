/**
 * Calls the real Next.js route handlers in-process (no server), as an HTTP client would: a Request in,
 * a Response out. Used by API tests; the handlers, auth, zod parsing and error mapping all run for real.
 */
type Method = "GET" | "POST" | "PATCH" | "DELETE";
type RouteModule = Partial<Record<Method, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>>;

const ROUTES: { pattern: RegExp; load: () => Promise<RouteModule>; names: string[] }[] = [
  { pattern: /^\/api\/tasks$/, load: () => import("@/app/api/tasks/route"), names: [] },
  { pattern: /^\/api\/tasks\/([^/]+)$/, load: () => import("@/app/api/tasks/[taskId]/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/work-items$/, load: () => import("@/app/api/tasks/[taskId]/work-items/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/work-items\/start$/, load: () => import("@/app/api/tasks/[taskId]/work-items/start/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/cancel$/, load: () => import("@/app/api/tasks/[taskId]/cancel/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/complete$/, load: () => import("@/app/api/tasks/[taskId]/complete/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/fail$/, load: () => import("@/app/api/tasks/[taskId]/fail/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/reversal$/, load: () => import("@/app/api/tasks/[taskId]/reversal/route"), names: ["taskId"] },
  { pattern: /^\/api\/conversations\/([^/]+)\/turns\/([^/]+)\/cancel$/, load: () => import("@/app/api/conversations/[conversationId]/turns/[turnId]/cancel/route"), names: ["conversationId", "turnId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/cancellation$/, load: () => import("@/app/api/tasks/[taskId]/cancellation/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/events$/, load: () => import("@/app/api/tasks/[taskId]/events/route"), names: ["taskId"] },
  { pattern: /^\/api\/events$/, load: () => import("@/app/api/events/route"), names: [] },
  { pattern: /^\/api\/workers\/claim$/, load: () => import("@/app/api/workers/claim/route"), names: [] },
  { pattern: /^\/api\/work-items\/([^/]+)\/heartbeat$/, load: () => import("@/app/api/work-items/[id]/heartbeat/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/checkpoint$/, load: () => import("@/app/api/work-items/[id]/checkpoint/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/submitted$/, load: () => import("@/app/api/work-items/[id]/submitted/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/complete$/, load: () => import("@/app/api/work-items/[id]/complete/route"), names: ["id"] },
  { pattern: /^\/api\/review-items$/, load: () => import("@/app/api/review-items/route"), names: [] },
  { pattern: /^\/api\/review-items\/([^/]+)\/decision$/, load: () => import("@/app/api/review-items/[id]/decision/route"), names: ["id"] },
  { pattern: /^\/api\/metrics\/cancellations$/, load: () => import("@/app/api/metrics/cancellations/route"), names: [] },
  { pattern: /^\/api\/work-items\/([^/]+)\/partial$/, load: () => import("@/app/api/work-items/[id]/partial/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/progress$/, load: () => import("@/app/api/work-items/[id]/progress/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/uncertain$/, load: () => import("@/app/api/work-items/[id]/uncertain/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/resources$/, load: () => import("@/app/api/work-items/[id]/resources/route"), names: ["id"] },
  { pattern: /^\/api\/work-items\/([^/]+)\/resources\/release$/, load: () => import("@/app/api/work-items/[id]/resources/release/route"), names: ["id"] },
  { pattern: /^\/api\/conversations\/([^/]+)\/messages$/, load: () => import("@/app/api/conversations/[conversationId]/messages/route"), names: ["conversationId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/proposal$/, load: () => import("@/app/api/tasks/[taskId]/proposal/route"), names: ["taskId"] },
  { pattern: /^\/api\/tasks\/([^/]+)\/proposal\/confirm$/, load: () => import("@/app/api/tasks/[taskId]/proposal/confirm/route"), names: ["taskId"] },
  { pattern: /^\/api\/tokens$/, load: () => import("@/app/api/tokens/route"), names: [] },
  { pattern: /^\/api\/tokens\/([^/]+)$/, load: () => import("@/app/api/tokens/[id]/route"), names: ["id"] },
  { pattern: /^\/api\/accounts$/, load: () => import("@/app/api/accounts/route"), names: [] },
  { pattern: /^\/api\/accounts\/([^/]+)$/, load: () => import("@/app/api/accounts/[id]/route"), names: ["id"] },
  { pattern: /^\/api\/accounts\/([^/]+)\/disable$/, load: () => import("@/app/api/accounts/[id]/disable/route"), names: ["id"] },
  { pattern: /^\/api\/accounts\/([^/]+)\/enable$/, load: () => import("@/app/api/accounts/[id]/enable/route"), names: ["id"] },
  { pattern: /^\/api\/admin\/history$/, load: () => import("@/app/api/admin/history/route"), names: [] },
  { pattern: /^\/api\/session$/, load: () => import("@/app/api/session/route"), names: [] },
  { pattern: /^\/api\/escalation-channels$/, load: () => import("@/app/api/escalation-channels/route"), names: [] },
  { pattern: /^\/api\/escalation-channels\/([^/]+)$/, load: () => import("@/app/api/escalation-channels/[id]/route"), names: ["id"] },
  { pattern: /^\/api\/escalations$/, load: () => import("@/app/api/escalations/route"), names: [] },
  { pattern: /^\/api\/demo\/services$/, load: () => import("@/app/api/demo/services/route"), names: [] },
  { pattern: /^\/api\/demo\/services\/([^/]+)\/faults$/, load: () => import("@/app/api/demo/services/[service]/faults/route"), names: ["service"] },
  { pattern: /^\/api\/demo\/services\/([^/]+)\/witness$/, load: () => import("@/app/api/demo/services/[service]/witness/route"), names: ["service"] },
  { pattern: /^\/api\/audit$/, load: () => import("@/app/api/audit/route"), names: [] },
  { pattern: /^\/api\/openapi\.json$/, load: () => import("@/app/api/openapi.json/route"), names: [] },
];

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function call(method: Method, pathWithQuery: string, options: CallOptions = {}): Promise<Response> {
  const url = new URL(pathWithQuery, "http://localhost:3000");
  const route = ROUTES.find((r) => r.pattern.test(url.pathname));
  if (!route) throw new Error(`no route for ${url.pathname}`);
  const match = route.pattern.exec(url.pathname)!;
  const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(match[i + 1])]));
  const handler = (await route.load())[method];
  if (!handler) return new Response(null, { status: 405 });
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(url, { method, headers, body, signal: options.signal });
  return handler(request, { params: Promise.resolve(params) });
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
