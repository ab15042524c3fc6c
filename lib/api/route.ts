import type { z } from "zod";
import { db, type Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { authenticateToken, type Principal, type TokenPrincipal } from "../auth/tokens";
import { authenticateConsoleSession } from "../auth/console-session";
import { authenticateSession } from "../auth/person";
import { allows } from "../auth/permissions";
import type { RouteContract } from "./contract";
import { errorResponse } from "./http-errors";
import { forbiddenMessage } from "./forbidden";
import { assertTokenNotQuarantined, quarantinedError } from "../incidents/quarantine";
import { assertAcceptableBody, assertAcceptableInput, MAX_BODY_BYTES } from "./input-guard";
import { formatBytes } from "../http/read-body";

export const SESSION_COOKIE = "stopline_session";

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteArgs<C extends RouteContract> {
  request: Request;
  database: Database;
  principal: C["auth"] extends "public" ? Principal | null : Principal;
  params: Infer<C["params"]>;
  query: Infer<C["query"]>;
  body: Infer<C["body"]>;
}

type Handler<C extends RouteContract> = (args: RouteArgs<C>) => Promise<unknown>;

/**
 * Builds a Next.js route handler from a contract entry: authenticates, checks the role, parses params,
 * query and JSON body with zod, calls the handler (one domain call), and maps every error in one place.
 * A handler returns data (sent as JSON with the contract's status) or a Response of its own.
 */
export function withRoute<C extends RouteContract>(route: C, handler: Handler<C>) {
  return async (request: Request, context: { params?: Promise<Record<string, string>> }): Promise<Response> => {
    try {
      const { database, principal, params, query } = await admitRequest(route, request, (await context.params) ?? {});
      const body = route.body ? route.body.parse(await readJson(request)) : undefined;
      const result = await handler({ request, database, principal, params, query, body } as RouteArgs<C>);
      if (result instanceof Response) return result;
      if (result === undefined) return new Response(null, { status: route.status ?? 204 });
      return Response.json(serialize(route, result), { status: route.status ?? 200 });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/**
 * What every route does before its handler: authenticates, checks the role, parses the path parameters and the
 * query with zod. Also used by the server's own lane for event streams (lib/events/direct-lane.ts).
 */
export async function admitRequest<C extends RouteContract>(route: C, request: Request, rawParams: Record<string, string>) {
  const database = db();
  const principal = await authenticate(database, request, route);
  // A route that starts work refuses a quarantined token (409): a bearer token's kill switch was read with the token.
  if (route.startsWork && principal && principal.kind !== "person") {
    if (principal.quarantinedBy) throw quarantinedError(principal.quarantinedBy);
    if (principal.quarantinedBy === undefined) await assertTokenNotQuarantined(database, principal.id);
  }
  assertAcceptableInput(rawParams, "(path)");
  const rawQuery = Object.fromEntries(new URL(request.url).searchParams);
  assertAcceptableInput(rawQuery, "(query)");
  const params = (route.params ? route.params.parse(rawParams) : undefined) as Infer<C["params"]>;
  const query = (route.query ? route.query.parse(rawQuery) : undefined) as Infer<C["query"]>;
  return { database, principal: principal as RouteArgs<C>["principal"], params, query };
}

/**
 * Sends exactly what the contract's response schema describes: unknown fields (lease tokens of other
 * workers, password hashes …) are stripped, and a response that breaks the contract is a server error.
 */
function serialize(route: RouteContract, result: unknown): unknown {
  const plain = JSON.parse(JSON.stringify(result));
  if (!route.response) return plain;
  const parsed = route.response.safeParse(plain);
  if (!parsed.success) {
    throw new Error(`response of ${route.method} ${route.path} breaks its contract: ${parsed.error.message}`);
  }
  return parsed.data;
}

async function readJson(request: Request): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge(declared);
  const raw = await request.text();
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES) throw tooLarge(Buffer.byteLength(raw));
  if (!raw.trim()) return {};
  // Only JSON is accepted: a form post from another site cannot be mistaken for an API call.
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError(ErrorCode.badRequest, `the body must be JSON (Content-Type: application/json), not "${type || "none"}"`, { field: "(body)" });
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new AppError(ErrorCode.badRequest, "the body is not valid JSON", { field: "(body)" });
  }
  assertAcceptableBody(body);
  return body;
}

const tooLarge = (received?: number) => bodyTooLarge(received);

/** The 413 of every route and of the server's API lane: names the limit (and the size received, when known). */
export function bodyTooLarge(received?: number): AppError {
  const size = received === undefined ? "larger than that" : `${formatBytes(received)}${received >= 1024 ? ` (${received} bytes)` : ""}`;
  return new AppError(
    ErrorCode.payloadTooLarge,
    `the request body is larger than the API accepts: at most ${formatBytes(MAX_BODY_BYTES)} (${MAX_BODY_BYTES} bytes) per request; this one was ${size}`,
    { field: "(body)", limit: MAX_BODY_BYTES, ...(received === undefined ? {} : { received }) },
  );
}

async function authenticate(database: Database, request: Request, route: RouteContract): Promise<TokenPrincipal | null> {
  const header = request.headers.get("authorization");
  let principal: TokenPrincipal | null = null;
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    principal = match ? await authenticateToken(database, match[1], { quarantine: !!route.startsWork }) : null;
    if (!principal && route.auth !== "public") throw new AppError(ErrorCode.unauthorized, "the bearer token is not valid (wrong, revoked or malformed)");
  } else {
    // A person's Better Auth session first, then the console session of an admin token (the cookie holds a
    // session id, never the token).
    principal = await authenticateSession(database, request.headers);
    if (!principal) {
      const cookie = readCookie(request, SESSION_COOKIE);
      if (cookie) principal = await authenticateConsoleSession(database, cookie);
    }
    // Cookie-authenticated writes must come from this site.
    if (principal && isUnsafe(request.method)) assertSameOrigin(request);
  }
  if (route.auth === "public") return principal;
  if (!principal) throw new AppError(ErrorCode.unauthorized, "sign in, or send Authorization: Bearer <token>");
  if (!allows(route.auth, principal.role)) {
    throw new AppError(ErrorCode.forbidden, forbiddenMessage(route, principal), { role: principal.role, allowed: route.auth });
  }
  return principal;
}

const isUnsafe = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());

/** Cookie-authenticated writes must come from this site (cross-site request forgery). */
function assertSameOrigin(request: Request) {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") throw new AppError(ErrorCode.forbidden, "cross-site request refused");
  const origin = request.headers.get("origin");
  if (origin) {
    // "null" (a sandboxed frame, a file: page, a cross-origin redirect) and anything that is not an origin are
    // refused like any other site's.
    let originHost: string | null = null;
    try {
      originHost = origin === "null" ? null : new URL(origin).host;
    } catch {
      throw new AppError(ErrorCode.forbidden, "cross-site request refused (the Origin header is not a valid origin)", { origin: origin.slice(0, 200) });
    }
    const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
    if (!originHost) throw new AppError(ErrorCode.forbidden, "cross-site request refused (Origin: null is never this site)");
    if (!host || originHost !== host) throw new AppError(ErrorCode.forbidden, "cross-site request refused (Origin does not match)");
  } else if (!site) {
    throw new AppError(ErrorCode.forbidden, "a signed-in browser write needs an Origin or Sec-Fetch-Site header");
  }
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}
