/**
 * Every route of the HTTP API and its handlers' module, in one table: how `npm start`'s server dispatches API
 * requests without Next.js's router (scripts/start/api-lane.ts), and how tests call the handlers in-process
 * (test/support/api-client.ts). Next.js still serves the same files by their paths (`next dev`, pages).
 * Each route is its folder (the pattern and parameter names are derived from it, as Next.js derives them);
 * test/scripts/start/route-table.test.ts checks that the table names every route.ts under app/api and nothing else, and
 * that it serves every route of the contract (lib/api/contract.ts) with its method — and nothing outside it but
 * Better Auth's and the MCP gateway's own protocols.
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

/**
 * A route from its folder, as Next.js reads it: `[name]` is one segment, `[...name]` the rest of the path. The pattern
 * and the parameter names are derived — the folder is the one source (the import stays literal for the bundler).
 */
export function route(file: string, load: () => Promise<RouteModule>): ApiRoute {
  const names: string[] = [];
  const segments = file
    .replace(/^app/, "")
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^\[(\.\.\.)?([^\]]+)\]$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(param[2]);
      return param[1] ? "(.+)" : "([^/]+)";
    });
  return { pattern: new RegExp(`^/${segments.join("/")}$`), load: once(load), names, file };
}

export const API_ROUTES: ApiRoute[] = [
  route("app/api/tasks", () => import("@/app/api/tasks/route")),
  route("app/api/tasks/[taskId]", () => import("@/app/api/tasks/[taskId]/route")),
  route("app/api/tasks/[taskId]/work-items", () => import("@/app/api/tasks/[taskId]/work-items/route")),
  route("app/api/tasks/[taskId]/work-items/start", () => import("@/app/api/tasks/[taskId]/work-items/start/route")),
  route("app/api/tasks/[taskId]/cancel", () => import("@/app/api/tasks/[taskId]/cancel/route")),
  route("app/api/tasks/[taskId]/complete", () => import("@/app/api/tasks/[taskId]/complete/route")),
  route("app/api/tasks/[taskId]/fail", () => import("@/app/api/tasks/[taskId]/fail/route")),
  route("app/api/tasks/[taskId]/reversal", () => import("@/app/api/tasks/[taskId]/reversal/route")),
  route("app/api/conversations/[conversationId]/turns/[turnId]/cancel", () => import("@/app/api/conversations/[conversationId]/turns/[turnId]/cancel/route")),
  route("app/api/tasks/[taskId]/cancellation", () => import("@/app/api/tasks/[taskId]/cancellation/route")),
  route("app/api/work-items/[id]/cancel", () => import("@/app/api/work-items/[id]/cancel/route")),
  route("app/api/work-items/[id]/cancellation", () => import("@/app/api/work-items/[id]/cancellation/route")),
  route("app/api/conversations/[conversationId]/cancel", () => import("@/app/api/conversations/[conversationId]/cancel/route")),
  route("app/api/people/[ownerId]/cancel", () => import("@/app/api/people/[ownerId]/cancel/route")),
  route("app/api/incidents", () => import("@/app/api/incidents/route")),
  route("app/api/incidents/targets", () => import("@/app/api/incidents/targets/route")),
  route("app/api/incidents/[id]", () => import("@/app/api/incidents/[id]/route")),
  route("app/api/incidents/[id]/lift", () => import("@/app/api/incidents/[id]/lift/route")),
  route("app/api/incidents/[id]/lift/confirm", () => import("@/app/api/incidents/[id]/lift/confirm/route")),
  route("app/api/incidents/[id]/lift/withdraw", () => import("@/app/api/incidents/[id]/lift/withdraw/route")),
  route("app/api/tasks/[taskId]/stop-preview", () => import("@/app/api/tasks/[taskId]/stop-preview/route")),
  route("app/api/tasks/[taskId]/events", () => import("@/app/api/tasks/[taskId]/events/route")),
  route("app/api/events", () => import("@/app/api/events/route")),
  route("app/api/workers/claim", () => import("@/app/api/workers/claim/route")),
  route("app/api/workers/hosts", () => import("@/app/api/workers/hosts/route")),
  route("app/api/workers/requests", () => import("@/app/api/workers/requests/route")),
  route("app/api/tool-requests/[id]/answer", () => import("@/app/api/tool-requests/[id]/answer/route")),
  route("app/api/work-items/[id]/heartbeat", () => import("@/app/api/work-items/[id]/heartbeat/route")),
  route("app/api/work-items/[id]/checkpoint", () => import("@/app/api/work-items/[id]/checkpoint/route")),
  route("app/api/work-items/[id]/submitted", () => import("@/app/api/work-items/[id]/submitted/route")),
  route("app/api/work-items/[id]/complete", () => import("@/app/api/work-items/[id]/complete/route")),
  route("app/api/review-items", () => import("@/app/api/review-items/route")),
  route("app/api/review-items/[id]/decision", () => import("@/app/api/review-items/[id]/decision/route")),
  route("app/api/review-items/[id]/retry-release", () => import("@/app/api/review-items/[id]/retry-release/route")),
  route("app/api/metrics/cancellations", () => import("@/app/api/metrics/cancellations/route")),
  route("app/api/work-items/[id]/partial", () => import("@/app/api/work-items/[id]/partial/route")),
  route("app/api/work-items/[id]/progress", () => import("@/app/api/work-items/[id]/progress/route")),
  route("app/api/work-items/[id]/uncertain", () => import("@/app/api/work-items/[id]/uncertain/route")),
  route("app/api/work-items/[id]/resources", () => import("@/app/api/work-items/[id]/resources/route")),
  route("app/api/work-items/[id]/resources/release", () => import("@/app/api/work-items/[id]/resources/release/route")),
  route("app/api/work-items/[id]/resource-intents", () => import("@/app/api/work-items/[id]/resource-intents/route")),
  route("app/api/work-items/[id]/resource-intents/settle", () => import("@/app/api/work-items/[id]/resource-intents/settle/route")),
  route("app/api/conversations/[conversationId]/messages", () => import("@/app/api/conversations/[conversationId]/messages/route")),
  route("app/api/tasks/[taskId]/proposal", () => import("@/app/api/tasks/[taskId]/proposal/route")),
  route("app/api/tasks/[taskId]/proposal/confirm", () => import("@/app/api/tasks/[taskId]/proposal/confirm/route")),
  route("app/api/tokens", () => import("@/app/api/tokens/route")),
  route("app/api/tokens/[id]", () => import("@/app/api/tokens/[id]/route")),
  route("app/api/accounts", () => import("@/app/api/accounts/route")),
  route("app/api/accounts/[id]", () => import("@/app/api/accounts/[id]/route")),
  route("app/api/accounts/[id]/disable", () => import("@/app/api/accounts/[id]/disable/route")),
  route("app/api/accounts/[id]/enable", () => import("@/app/api/accounts/[id]/enable/route")),
  route("app/api/admin/history", () => import("@/app/api/admin/history/route")),
  route("app/api/session", () => import("@/app/api/session/route")),
  route("app/api/escalation-channels", () => import("@/app/api/escalation-channels/route")),
  route("app/api/escalation-channels/[id]", () => import("@/app/api/escalation-channels/[id]/route")),
  route("app/api/escalation-channels/[id]/test", () => import("@/app/api/escalation-channels/[id]/test/route")),
  route("app/api/escalations", () => import("@/app/api/escalations/route")),
  route("app/api/demo/services", () => import("@/app/api/demo/services/route")),
  route("app/api/demo/services/[service]/faults", () => import("@/app/api/demo/services/[service]/faults/route")),
  route("app/api/demo/services/[service]/witness", () => import("@/app/api/demo/services/[service]/witness/route")),
  route("app/api/audit", () => import("@/app/api/audit/route")),
  route("app/api/openapi.json", () => import("@/app/api/openapi.json/route")),
  route("app/api/auth/[...all]", () => import("@/app/api/auth/[...all]/route") as Promise<RouteModule>),
  route("app/api/mcp", () => import("@/app/api/mcp/route") as Promise<RouteModule>),
];

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
