import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { TokenRole } from "../ledger/states";
import { authenticateToken } from "./tokens";

export const SESSION_MAX_AGE_S = 8 * 60 * 60;

/** Console sign-in: only an admin token opens the console (accounts and roles for people come later). */
export async function signInWithToken(database: Database, token: string) {
  const principal = await authenticateToken(database, token);
  if (!principal) throw new AppError(ErrorCode.unauthorized, "that token is not valid (wrong, revoked or mistyped)", { field: "token" });
  if (principal.role !== TokenRole.admin) throw new AppError(ErrorCode.forbidden, `a ${principal.role} token cannot open the console; use an admin token`, { field: "token" });
  return principal;
}

export function sessionCookie(name: string, value: string, request: Request, maxAgeS = SESSION_MAX_AGE_S): string {
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`;
}
