import { errorResponse } from "@/lib/api/http-errors";
import { auth, authErrors } from "@/lib/auth/better-auth";
import { throttledSignIn } from "@/lib/auth/sign-in-throttle";
import { db, type Database } from "@/lib/db/client";
import { asUnavailable } from "@/lib/db/unavailable";

// Better Auth's own endpoints: /api/auth/sign-in/email, /api/auth/sign-out, /api/auth/get-session, …
// E-mail sign-in goes through the sign-in rate limit (per account and per address) first.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Better Auth's handler; its 500 for an unavailable database becomes a 503 with Retry-After. */
async function handle(database: Database, request: Request): Promise<Response> {
  const store: { error?: unknown } = {};
  const response = await authErrors.run(store, () => auth(database).handler(request));
  const unavailable = response.status >= 500 ? asUnavailable(store.error) : null;
  return unavailable ? errorResponse(unavailable) : response;
}

export const GET = async (request: Request) => {
  try {
    return await handle(db(), request);
  } catch (error) {
    return errorResponse(error);
  }
};

export const POST = async (request: Request) => {
  try {
    const database = db();
    if (new URL(request.url).pathname.endsWith("/sign-in/email")) return await throttledSignIn(database, request, (r) => handle(database, r));
    return await handle(database, request);
  } catch (error) {
    return errorResponse(error);
  }
};
