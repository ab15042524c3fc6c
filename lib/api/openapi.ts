import { z } from "zod";
import { contract, type RouteContract } from "./contract";
import { ErrorSchema } from "./schemas";

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;

const SUCCESS: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted: recorded; the work it starts continues in the background",
  "204": "No content",
};

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
        ? {
            description: "text/event-stream of ledger events; each event's id is the ledger sequence",
            content: { "text/event-stream": { schema: { type: "string" } } },
          }
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
    if (operationId === "createSession")
      responses["429"] = { description: "Too many failed sign-ins from this address: retry after the Retry-After header's seconds", ...errorSchema };
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
  paths["/api/mcp"] = mcpGatewayPath();
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

/**
 * The MCP gateway's endpoint (app/api/mcp/route.ts): MCP's Streamable HTTP transport, not a route of the JSON contract —
 * its bodies are JSON-RPC messages whose shapes the MCP specification defines. Listed so that the API docs name it.
 */
function mcpGatewayPath(): Record<string, unknown> {
  const description = [
    "Roles: admin, agent (Authorization: Bearer <API token>; 401 without one).",
    "Stopline as an MCP server in front of the MCP servers in stopline.mcp.json: tools/list shows their tools, and every tools/call becomes a work item of the client session's task, so the console and the API see and stop it like any other child.",
    "Both protocol eras on one URL: 2025-11-25 and earlier — sessionful (initialize, then the Mcp-Session-Id header; DELETE ends the session, and a client's notifications/cancelled stops that call); 2026-07-28 — per request (server/discover, the _meta envelope; closing a call's response stream stops that call; `_meta[\"dev.stopline/session\"]` groups calls into one task).",
    "An unknown tool is the JSON-RPC error -32602. Clients that cannot send headers (MCP Inspector over stdio, IDEs) use the SDK's stdio relay: `STOPLINE_TOKEN=<agent token> npx stopline-mcp-stdio`.",
    "The upstreams' resources, prompts and completions are relayed as they are (no work items); upstream log messages, subscriptions and sampling/elicitation requests are not. The official conformance results per spec revision are in the README.",
  ].join(" ");
  const jsonRpc = {
    type: "object",
    required: ["jsonrpc"],
    properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer"] }, method: { type: "string" }, params: { type: "object" } },
  };
  const common = {
    "401": { description: "Missing or invalid bearer token (a JSON-RPC error body)" },
    "403": { description: "A Host or Origin header that is not allowed (DNS rebinding protection; STOPLINE_MCP_ALLOWED_HOSTS adds names)" },
    "503": { description: "No gateway configured: create stopline.mcp.json or set STOPLINE_MCP_CONFIG" },
  };
  return {
    post: {
      operationId: "mcpMessage",
      summary: "Send an MCP JSON-RPC message (initialize, tools/list, tools/call, notifications/cancelled, …)",
      description,
      parameters: [
        {
          name: "Mcp-Session-Id",
          in: "header",
          required: false,
          description: "2025-11-25: the session the server gave at initialize",
          schema: { type: "string" },
        },
        { name: "MCP-Protocol-Version", in: "header", required: false, description: "The negotiated protocol version", schema: { type: "string" } },
      ],
      requestBody: { required: true, content: { "application/json": { schema: jsonRpc } } },
      responses: {
        "200": {
          description: "The JSON-RPC answer, as JSON or as a text/event-stream (progress notifications, then the result)",
          content: { "application/json": { schema: jsonRpc }, "text/event-stream": { schema: { type: "string" } } },
        },
        "202": { description: "Accepted: a notification or response (no body)" },
        "400": { description: "Not JSON, or a request other than initialize without a session (2025-11-25)" },
        "404": { description: "Unknown or ended session (2025-11-25): initialize again" },
        ...common,
      },
    },
    get: {
      operationId: "mcpStream",
      summary: "Open the session's stream of server messages (2025-11-25)",
      description: "Roles: admin, agent. See POST /api/mcp.",
      responses: {
        "200": { description: "text/event-stream of server messages", content: { "text/event-stream": { schema: { type: "string" } } } },
        ...common,
      },
    },
    delete: {
      operationId: "mcpEndSession",
      summary: "End the MCP session (2025-11-25): its task is completed when nothing runs in it",
      description: "Roles: admin, agent. See POST /api/mcp.",
      responses: { "200": { description: "Ended" }, "404": { description: "Unknown session" }, ...common },
    },
  };
}
