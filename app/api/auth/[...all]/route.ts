import { errorResponse } from "@/lib/api/http-errors";
import { auth } from "@/lib/auth/better-auth";
import { throttledSignIn } from "@/lib/auth/sign-in-throttle";
import { db } from "@/lib/db/client";

// Better Auth's own endpoints: /api/auth/sign-in/email, /api/auth/sign-out, /api/auth/get-session, …
// E-mail sign-in goes through the sign-in rate limit (per account and per address) first.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = async (request: Request) => {
  try {
    return await auth().handler(request);
  } catch (error) {
    return errorResponse(error);
  }
};

export const POST = async (request: Request) => {
  try {
    const database = db();
    if (new URL(request.url).pathname.endsWith("/sign-in/email")) return await throttledSignIn(database, request, (r) => auth(database).handler(r));
    return await auth(database).handler(request);
  } catch (error) {
    return errorResponse(error);
  }
};
