/**
 * Every route of the HTTP API and its handlers' module, in one table: how `npm start`'s server dispatches API
 * requests without Next.js's router (scripts/start/api-lane.ts), and how tests call the handlers in-process
 * (test/support/api-client.ts). Next.js still serves the same files by their paths (`next dev`, pages).
 * scripts/start/route-table.test.ts checks that it names every route.ts under app/api, and nothing else.
 */
export type Method = "GET" | "POST" | "PATCH" | "DELETE";
export type RouteModule = Partial<Record<Method, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>>;

export interface ApiRoute {
  pattern: RegExp;
  load: () => Promise<RouteModule>;
  /** The names of the pattern's groups, in order (a catch-all — Better Auth's — gets the rest of the path). */
  names: string[];
  /** The route's folder under app/ (checked against the file system). */
  file: string;
}

export const API_ROUTES: ApiRoute[] = (
  [
    { pattern: /^\/api\/tasks$/, load: () => import("@/app/api/tasks/route"), names: [], file: "app/api/tasks" },
    { pattern: /^\/api\/tasks\/([^/]+)$/, load: () => import("@/app/api/tasks/[taskId]/route"), names: ["taskId"], file: "app/api/tasks/[taskId]" },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/work-items$/,
      load: () => import("@/app/api/tasks/[taskId]/work-items/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/work-items",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/work-items\/start$/,
      load: () => import("@/app/api/tasks/[taskId]/work-items/start/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/work-items/start",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/cancel$/,
      load: () => import("@/app/api/tasks/[taskId]/cancel/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/cancel",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/complete$/,
      load: () => import("@/app/api/tasks/[taskId]/complete/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/complete",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/fail$/,
      load: () => import("@/app/api/tasks/[taskId]/fail/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/fail",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/reversal$/,
      load: () => import("@/app/api/tasks/[taskId]/reversal/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/reversal",
    },
    {
      pattern: /^\/api\/conversations\/([^/]+)\/turns\/([^/]+)\/cancel$/,
      load: () => import("@/app/api/conversations/[conversationId]/turns/[turnId]/cancel/route"),
      names: ["conversationId", "turnId"],
      file: "app/api/conversations/[conversationId]/turns/[turnId]/cancel",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/cancellation$/,
      load: () => import("@/app/api/tasks/[taskId]/cancellation/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/cancellation",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/cancel$/,
      load: () => import("@/app/api/work-items/[id]/cancel/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/cancel",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/cancellation$/,
      load: () => import("@/app/api/work-items/[id]/cancellation/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/cancellation",
    },
    {
      pattern: /^\/api\/conversations\/([^/]+)\/cancel$/,
      load: () => import("@/app/api/conversations/[conversationId]/cancel/route"),
      names: ["conversationId"],
      file: "app/api/conversations/[conversationId]/cancel",
    },
    {
      pattern: /^\/api\/people\/([^/]+)\/cancel$/,
      load: () => import("@/app/api/people/[ownerId]/cancel/route"),
      names: ["ownerId"],
      file: "app/api/people/[ownerId]/cancel",
    },
    { pattern: /^\/api\/incidents$/, load: () => import("@/app/api/incidents/route"), names: [], file: "app/api/incidents" },
    { pattern: /^\/api\/incidents\/targets$/, load: () => import("@/app/api/incidents/targets/route"), names: [], file: "app/api/incidents/targets" },
    { pattern: /^\/api\/incidents\/([^/]+)$/, load: () => import("@/app/api/incidents/[id]/route"), names: ["id"], file: "app/api/incidents/[id]" },
    {
      pattern: /^\/api\/incidents\/([^/]+)\/lift$/,
      load: () => import("@/app/api/incidents/[id]/lift/route"),
      names: ["id"],
      file: "app/api/incidents/[id]/lift",
    },
    {
      pattern: /^\/api\/incidents\/([^/]+)\/lift\/confirm$/,
      load: () => import("@/app/api/incidents/[id]/lift/confirm/route"),
      names: ["id"],
      file: "app/api/incidents/[id]/lift/confirm",
    },
    {
      pattern: /^\/api\/incidents\/([^/]+)\/lift\/withdraw$/,
      load: () => import("@/app/api/incidents/[id]/lift/withdraw/route"),
      names: ["id"],
      file: "app/api/incidents/[id]/lift/withdraw",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/stop-preview$/,
      load: () => import("@/app/api/tasks/[taskId]/stop-preview/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/stop-preview",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/events$/,
      load: () => import("@/app/api/tasks/[taskId]/events/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/events",
    },
    { pattern: /^\/api\/events$/, load: () => import("@/app/api/events/route"), names: [], file: "app/api/events" },
    { pattern: /^\/api\/workers\/claim$/, load: () => import("@/app/api/workers/claim/route"), names: [], file: "app/api/workers/claim" },
    { pattern: /^\/api\/workers\/hosts$/, load: () => import("@/app/api/workers/hosts/route"), names: [], file: "app/api/workers/hosts" },
    { pattern: /^\/api\/workers\/requests$/, load: () => import("@/app/api/workers/requests/route"), names: [], file: "app/api/workers/requests" },
    {
      pattern: /^\/api\/tool-requests\/([^/]+)\/answer$/,
      load: () => import("@/app/api/tool-requests/[id]/answer/route"),
      names: ["id"],
      file: "app/api/tool-requests/[id]/answer",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/heartbeat$/,
      load: () => import("@/app/api/work-items/[id]/heartbeat/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/heartbeat",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/checkpoint$/,
      load: () => import("@/app/api/work-items/[id]/checkpoint/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/checkpoint",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/submitted$/,
      load: () => import("@/app/api/work-items/[id]/submitted/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/submitted",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/complete$/,
      load: () => import("@/app/api/work-items/[id]/complete/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/complete",
    },
    { pattern: /^\/api\/review-items$/, load: () => import("@/app/api/review-items/route"), names: [], file: "app/api/review-items" },
    {
      pattern: /^\/api\/review-items\/([^/]+)\/decision$/,
      load: () => import("@/app/api/review-items/[id]/decision/route"),
      names: ["id"],
      file: "app/api/review-items/[id]/decision",
    },
    {
      pattern: /^\/api\/review-items\/([^/]+)\/retry-release$/,
      load: () => import("@/app/api/review-items/[id]/retry-release/route"),
      names: ["id"],
      file: "app/api/review-items/[id]/retry-release",
    },
    {
      pattern: /^\/api\/metrics\/cancellations$/,
      load: () => import("@/app/api/metrics/cancellations/route"),
      names: [],
      file: "app/api/metrics/cancellations",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/partial$/,
      load: () => import("@/app/api/work-items/[id]/partial/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/partial",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/progress$/,
      load: () => import("@/app/api/work-items/[id]/progress/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/progress",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/uncertain$/,
      load: () => import("@/app/api/work-items/[id]/uncertain/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/uncertain",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/resources$/,
      load: () => import("@/app/api/work-items/[id]/resources/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/resources",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/resources\/release$/,
      load: () => import("@/app/api/work-items/[id]/resources/release/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/resources/release",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/resource-intents$/,
      load: () => import("@/app/api/work-items/[id]/resource-intents/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/resource-intents",
    },
    {
      pattern: /^\/api\/work-items\/([^/]+)\/resource-intents\/settle$/,
      load: () => import("@/app/api/work-items/[id]/resource-intents/settle/route"),
      names: ["id"],
      file: "app/api/work-items/[id]/resource-intents/settle",
    },
    {
      pattern: /^\/api\/conversations\/([^/]+)\/messages$/,
      load: () => import("@/app/api/conversations/[conversationId]/messages/route"),
      names: ["conversationId"],
      file: "app/api/conversations/[conversationId]/messages",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/proposal$/,
      load: () => import("@/app/api/tasks/[taskId]/proposal/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/proposal",
    },
    {
      pattern: /^\/api\/tasks\/([^/]+)\/proposal\/confirm$/,
      load: () => import("@/app/api/tasks/[taskId]/proposal/confirm/route"),
      names: ["taskId"],
      file: "app/api/tasks/[taskId]/proposal/confirm",
    },
    { pattern: /^\/api\/tokens$/, load: () => import("@/app/api/tokens/route"), names: [], file: "app/api/tokens" },
    { pattern: /^\/api\/tokens\/([^/]+)$/, load: () => import("@/app/api/tokens/[id]/route"), names: ["id"], file: "app/api/tokens/[id]" },
    { pattern: /^\/api\/accounts$/, load: () => import("@/app/api/accounts/route"), names: [], file: "app/api/accounts" },
    { pattern: /^\/api\/accounts\/([^/]+)$/, load: () => import("@/app/api/accounts/[id]/route"), names: ["id"], file: "app/api/accounts/[id]" },
    {
      pattern: /^\/api\/accounts\/([^/]+)\/disable$/,
      load: () => import("@/app/api/accounts/[id]/disable/route"),
      names: ["id"],
      file: "app/api/accounts/[id]/disable",
    },
    {
      pattern: /^\/api\/accounts\/([^/]+)\/enable$/,
      load: () => import("@/app/api/accounts/[id]/enable/route"),
      names: ["id"],
      file: "app/api/accounts/[id]/enable",
    },
    { pattern: /^\/api\/admin\/history$/, load: () => import("@/app/api/admin/history/route"), names: [], file: "app/api/admin/history" },
    { pattern: /^\/api\/session$/, load: () => import("@/app/api/session/route"), names: [], file: "app/api/session" },
    { pattern: /^\/api\/escalation-channels$/, load: () => import("@/app/api/escalation-channels/route"), names: [], file: "app/api/escalation-channels" },
    {
      pattern: /^\/api\/escalation-channels\/([^/]+)$/,
      load: () => import("@/app/api/escalation-channels/[id]/route"),
      names: ["id"],
      file: "app/api/escalation-channels/[id]",
    },
    {
      pattern: /^\/api\/escalation-channels\/([^/]+)\/test$/,
      load: () => import("@/app/api/escalation-channels/[id]/test/route"),
      names: ["id"],
      file: "app/api/escalation-channels/[id]/test",
    },
    { pattern: /^\/api\/escalations$/, load: () => import("@/app/api/escalations/route"), names: [], file: "app/api/escalations" },
    { pattern: /^\/api\/demo\/services$/, load: () => import("@/app/api/demo/services/route"), names: [], file: "app/api/demo/services" },
    {
      pattern: /^\/api\/demo\/services\/([^/]+)\/faults$/,
      load: () => import("@/app/api/demo/services/[service]/faults/route"),
      names: ["service"],
      file: "app/api/demo/services/[service]/faults",
    },
    {
      pattern: /^\/api\/demo\/services\/([^/]+)\/witness$/,
      load: () => import("@/app/api/demo/services/[service]/witness/route"),
      names: ["service"],
      file: "app/api/demo/services/[service]/witness",
    },
    { pattern: /^\/api\/audit$/, load: () => import("@/app/api/audit/route"), names: [], file: "app/api/audit" },
    { pattern: /^\/api\/openapi\.json$/, load: () => import("@/app/api/openapi.json/route"), names: [], file: "app/api/openapi.json" },
    {
      pattern: /^\/api\/auth\/(.+)$/,
      load: () => import("@/app/api/auth/[...all]/route") as Promise<RouteModule>,
      names: ["all"],
      file: "app/api/auth/[...all]",
    },
    { pattern: /^\/api\/mcp$/, load: () => import("@/app/api/mcp/route") as Promise<RouteModule>, names: [], file: "app/api/mcp" },
  ] as ApiRoute[]
).map((route) => ({ ...route, load: once(route.load) }));

/**
 * A route's module is imported once per process: every import() call goes through the module loader (with tsx,
 * a round trip to its hooks thread — measured ~0.3 ms of CPU per API request before this).
 */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((error) => {
      loaded = undefined; // a failed import is tried again on the next request
      throw error;
    }));
}

/** The route a path belongs to, with its parameters decoded (null: no API route has that path). */
export function matchApiRoute(pathname: string): { route: ApiRoute; params: Record<string, string> } | null {
  for (const route of API_ROUTES) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    return { route, params: Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1])])) };
  }
  return null;
}
