import { cookies, headers } from "next/headers";
import { SESSION_COOKIE } from "../api/route";
import { db } from "../db/client";
import { authenticateConsoleSession } from "./console-session";
import { authenticateSession } from "./person";
import { CONSOLE_ROLES } from "./permissions";
import type { Principal } from "./tokens";

/**
 * Whoever is signed in to this browser (server components only): a person's Better Auth session, else the
 * `stopline_session` cookie's console session (an admin token signed in at /console). Null when neither is valid.
 */
export async function getSignedInPrincipal(): Promise<Principal | null> {
  const person = await authenticateSession(db(), await headers());
  if (person) return person;
  const raw = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!raw) return null;
  return authenticateConsoleSession(db(), raw);
}

/**
 * The principal allowed into the console: an admin token, or a person who is admin, operator or support
 * (support reads only — the API refuses its writes, and the console hides write controls from it).
 * Null otherwise — the console then shows its sign-in form.
 */
export async function getConsolePrincipal(): Promise<Principal | null> {
  const principal = await getSignedInPrincipal();
  return principal && CONSOLE_ROLES.includes(principal.role) ? principal : null;
}
