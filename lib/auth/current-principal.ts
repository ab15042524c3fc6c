import { cookies } from "next/headers";
import { SESSION_COOKIE } from "../api/route";
import { db } from "../db/client";
import { TokenRole } from "../ledger/states";
import { authenticateToken, type Principal } from "./tokens";

/**
 * The admin signed in to the console (server components only): the `stopline_session` cookie's token,
 * authenticated like any bearer token. Null when there is no cookie, the token is no longer valid
 * (revoked, bootstrap token changed) or it is not an admin token — the console then shows its sign-in form.
 */
export async function getConsolePrincipal(): Promise<Principal | null> {
  const raw = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!raw) return null;
  const principal = await authenticateToken(db(), raw);
  return principal?.role === TokenRole.admin ? principal : null;
}
