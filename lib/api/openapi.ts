import { z } from "zod";
import { contract, type RouteContract } from "./contract";
import { ErrorSchema } from "./schemas";

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;

const SUCCESS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted: recorded; the work it starts continues in the background", "204": "No content" };

const ERROR_STATUSES: Record<string, string> = {
  "400": "Bad input: the body names each field and what is wrong; nothing was written",
  "401": "Missing or invalid bearer token",
  "403": "The token's role may not do this",
  "404": "Unknown id",
  "409": "Conflict: illegal transition (with the current state), cancellation already requested, stale intent or lease",
  "413": "The body is larger than 1 MiB",
  "503": "The database is unavailable right now (the message says why); nothing was confirmed — retry after the Retry-After header's seconds",
};

/** OpenAPI 3.1 document generated from the route contract and its zod schemas (JSON Schema 2020-12). */
let built: { document: Record<string, unknown>; json: string } | null = null;

/** The OpenAPI document of the contract. The contract is static, so it is built once per process. */
export function openApiDocument(): Record<string, unknown> {
  return (built ??= build()).document;
}

/** The same document as JSON text (GET /api/openapi.json sends these bytes without re-serialising them). */
export function openApiJson(): string {
  return (built ??= build()).json;
}

function build() {
  const document = buildOpenApiDocument();
  return { document, json: JSON.stringify(document) };
}

function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, route] of Object.entries(contract) as [string, RouteContract][]) {
    const parameters: unknown[] = [];
    for (const [name, schema] of Object.entries(route.params?.shape ?? {})) {
      parameters.push({ name, in: "path", required: true, schema: jsonSchema(schema as z.ZodType, "input") });
    }
    if (route.query) {
      const q = jsonSchema(route.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: "query", required: q.required?.includes(name) ?? false, schema });
      }
    }
    if (route.stream) parameters.push({ name: "Last-Event-ID", in: "header", required: false, schema: { type: "string", pattern: "^[0-9]+$" } });
    const ok = String(route.status ?? 200);
    const responses: Record<string, unknown> = {
      [ok]: route.stream
        ? { description: "text/event-stream of ledger events; each event's id is the ledger sequence", content: { "text/event-stream": { schema: { type: "string" } } } }
        : route.response
          ? { description: SUCCESS[ok] ?? "OK", content: { "application/json": { schema: jsonSchema(route.response, "output") } } }
          : { description: SUCCESS[ok] ?? "OK" },
    };
    const errorSchema = { content: { "application/json": { schema: jsonSchema(ErrorSchema, "output") } } };
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      if (route.auth === "public" && (status === "401" || status === "403")) continue;
      const takesInput = !!(route.body || route.query || route.params);
      if (!takesInput && status === "400") continue;
      if (!route.params && (status === "404" || status === "409") && route.method === "GET") continue;
      if (status === "413" && !route.body) continue;
      responses[status] = { description, ...errorSchema };
    }
    if (operationId === "createSession") responses["429"] = { description: "Too many failed sign-ins from this address: retry after the Retry-After header's seconds", ...errorSchema };
    const path = (paths[route.path] ??= {});
    path[route.method.toLowerCase()] = {
      operationId,
      summary: route.summary,
      ...(route.auth === "public" ? { security: [] } : { description: `Roles: ${route.auth.join(", ")}` }),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(route.body, "input") } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Stopline API",
      version: "0.1.0",
      description: "The cancellation ledger for AI agents: tasks, work items, the Stop boundary, the worker lease protocol and live events.",
    },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}
