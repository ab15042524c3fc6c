import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { clientAddressOf } from "../http/client-address";

/**
 * The sign-in rate limit (issue 11, item 5): failed attempts are counted per account AND per client address,
 * in the database (so every app instance shares the counts and a restart does not reset them). Over either
 * limit, sign-in answers 429 with Retry-After until the window ends — before the password is even checked, so a
 * right guess after the limit gets nothing either.
 *
 * The address is the one the server established (lib/http/client-address.ts: a client-supplied
 * X-Forwarded-For counts only from a trusted proxy), so rotating that header gains nothing; and the account
 * limit holds whatever addresses the attempts come from. A successful sign-in clears its account's count (not
 * the address's). The trade-off of any account limit: someone can keep an account from signing in for a window
 * by failing on purpose — the window is short and the address limit bounds how many accounts one source can do
 * that to.
 *
 * Limits (failures per window): STOPLINE_SIGNIN_MAX_FAILURES_PER_ACCOUNT (default 10),
 * STOPLINE_SIGNIN_MAX_FAILURES_PER_ADDRESS (default 50), window STOPLINE_SIGNIN_WINDOW_S (default 900 s).
 */
export interface SignInLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export function signInLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): SignInLimits {
  const num = (name: string, fallback: number) => {
    const v = Number(env[name]);
    return Number.isInteger(v) && v > 0 ? v : fallback;
  };
  return {
    perAccount: num("STOPLINE_SIGNIN_MAX_FAILURES_PER_ACCOUNT", 10),
    perAddress: num("STOPLINE_SIGNIN_MAX_FAILURES_PER_ADDRESS", 50),
    windowMs: num("STOPLINE_SIGNIN_WINDOW_S", 900) * 1000,
  };
}

export const accountKey = (email: string) => `signin:account:${email.trim().toLowerCase()}`;
export const addressKey = (address: string | null) => `signin:address:${address ?? "unknown"}`;

/** Throws 429 (too_many_requests, with retryAfterSeconds) when the account or the address used up its failures. */
export async function assertSignInAllowed(
  database: Database,
  who: { email: string | null; address: string | null },
  limits = signInLimitsFromEnv(),
): Promise<void> {
  const now = Date.now();
  const checks = [
    ...(who.email ? [{ key: accountKey(who.email), max: limits.perAccount, what: "this account" }] : []),
    { key: addressKey(who.address), max: limits.perAddress, what: "your address" },
  ];
  const buckets = await database.prisma.rateLimitBucket.findMany({ where: { key: { in: checks.map((c) => c.key) } } });
  for (const check of checks) {
    const bucket = buckets.find((b) => b.key === check.key);
    if (!bucket) continue;
    const endsAt = bucket.windowStart.getTime() + limits.windowMs;
    if (endsAt > now && bucket.count >= check.max) {
      const retryAfterSeconds = Math.max(1, Math.ceil((endsAt - now) / 1000));
      throw new AppError(
        ErrorCode.tooManyRequests,
        `too many failed sign-in attempts from ${check.what}: try again in ${retryAfterSeconds >= 120 ? `${Math.ceil(retryAfterSeconds / 60)} minutes` : `${retryAfterSeconds} seconds`}`,
        { retryAfterSeconds, limit: check.max, windowS: limits.windowMs / 1000 },
      );
    }
  }
}

/** Counts one failed attempt for the account (when known) and for the address. */
export async function recordSignInFailure(
  database: Database,
  who: { email: string | null; address: string | null },
  limits = signInLimitsFromEnv(),
): Promise<void> {
  const keys = [...(who.email ? [accountKey(who.email)] : []), addressKey(who.address)];
  for (const key of keys) await bump(database, key, limits.windowMs);
}

/** A successful sign-in clears its account's failures. */
export async function recordSignInSuccess(database: Database, email: string): Promise<void> {
  await database.prisma.rateLimitBucket.deleteMany({ where: { key: accountKey(email) } });
}

async function bump(database: Database, key: string, windowMs: number, retry = true): Promise<void> {
  const now = new Date();
  try {
    await database.prisma.$transaction(async (tx) => {
      const bucket = await tx.rateLimitBucket.findUnique({ where: { key } });
      if (!bucket) await tx.rateLimitBucket.create({ data: { key, windowStart: now, count: 1 } });
      else if (bucket.windowStart.getTime() + windowMs <= now.getTime())
        await tx.rateLimitBucket.update({ where: { key }, data: { windowStart: now, count: 1 } });
      else await tx.rateLimitBucket.update({ where: { key }, data: { count: { increment: 1 } } });
    });
  } catch (error) {
    // Two first failures at once on PostgreSQL: the other created the row; count again on it.
    if (retry && (error as { code?: string }).code === "P2002") return bump(database, key, windowMs, false);
    throw error;
  }
}

/**
 * Wraps Better Auth's e-mail sign-in (POST /api/auth/sign-in/email): refuses over the limit (429 in Better
 * Auth's error shape, with Retry-After), counts a refused password, clears the account on success.
 */
export async function throttledSignIn(database: Database, request: Request, signIn: (request: Request) => Promise<Response>): Promise<Response> {
  const address = clientAddressOf(request.headers);
  const raw = await request.clone().text();
  let email: string | null = null;
  try {
    const body = JSON.parse(raw) as { email?: unknown };
    if (typeof body.email === "string" && body.email.length <= 320) email = body.email;
  } catch {
    /* Better Auth answers the malformed body itself */
  }
  try {
    await assertSignInAllowed(database, { email, address });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return Response.json(
      { code: "TOO_MANY_ATTEMPTS", message: error.message, retryAfterSeconds: error.details.retryAfterSeconds },
      { status: 429, headers: { "Retry-After": String(error.details.retryAfterSeconds) } },
    );
  }
  const response = await signIn(request);
  if (response.ok) {
    if (email) await recordSignInSuccess(database, email);
  } else if (response.status >= 400 && response.status < 500 && response.status !== 429) {
    await recordSignInFailure(database, { email, address });
  }
  return response;
}
