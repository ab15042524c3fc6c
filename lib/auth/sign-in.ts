import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { clientAddressOf } from "../http/client-address";
import { TokenRole } from "../ledger/states";
import { createConsoleSession, SESSION_MAX_AGE_S } from "./console-session";
import { assertSignInAllowed, recordSignInFailure } from "./sign-in-throttle";
import { authenticateToken } from "./tokens";

/**
 * Console sign-in with an admin token: returns the principal and a new console session (its id goes in the
 * cookie; the token never does). Failed attempts count against the address's sign-in limit.
 */
export async function signInWithToken(database: Database, token: string, request: Request) {
  const address = clientAddressOf(request.headers);
  await assertSignInAllowed(database, { email: null, address });
  const principal = await authenticateToken(database, token);
  if (!principal) {
    await recordSignInFailure(database, { email: null, address });
    throw new AppError(ErrorCode.unauthorized, "that token is not valid (wrong, revoked or mistyped)", { field: "token" });
  }
  if (principal.role !== TokenRole.admin)
    throw new AppError(ErrorCode.forbidden, `a ${principal.role} token cannot open the console; use an admin token`, { field: "token" });
  const session = await createConsoleSession(database, principal);
  return { principal, session };
}

export function sessionCookie(name: string, value: string, request: Request, maxAgeS = SESSION_MAX_AGE_S): string {
  // Served over HTTPS, directly or through a trusted proxy (the server drops X-Forwarded-Proto from anyone else).
  const https = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  const secure = https ? "; Secure" : "";
  return `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
}
