/**
 * Calls the real Next.js route handlers in-process (no server), as an HTTP client would: a Request in,
 * a Response out. Used by API tests; the handlers, auth, zod parsing and error mapping all run for real.
 */
import { matchApiRoute, type Method } from "@/app/api/routes";

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function call(method: Method, pathWithQuery: string, options: CallOptions = {}): Promise<Response> {
  const url = new URL(pathWithQuery, "http://localhost:3000");
  const found = matchApiRoute(url.pathname);
  if (!found || found.route.file === "app/api/auth/[...all]" || found.route.file === "app/api/mcp") throw new Error(`no route for ${url.pathname}`);
  const { route, params } = found;
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
