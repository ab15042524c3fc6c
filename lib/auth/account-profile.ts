import type { Database } from "../db/client";
import { auth } from "./better-auth";
import { isPersonRole, type PersonRole } from "./permissions";

/** What the account page shows a person about themselves. */
export interface AccountProfile {
  id: string;
  name: string;
  email: string;
  role: PersonRole;
  /** When the account was created. */
  createdAt: Date;
  /** Whether the account has a password (a credential); only then can it be changed here. */
  hasPassword: boolean;
  /** Unexpired sessions of this account in other browsers (this one not counted). */
  otherSessions: number;
}

/**
 * The person signed in with the Better Auth session cookie in these headers, with what their account page
 * needs; null when there is no valid session (or the account is disabled). Reads through Better Auth's own
 * session API, so the same rules apply as for every request: an expired or revoked session is no session.
 */
export async function getAccountProfile(database: Database, headers: Headers): Promise<AccountProfile | null> {
  if (!/better-auth\.session_token=/.test(headers.get("cookie") ?? "")) return null;
  const session = await auth(database)
    .api.getSession({ headers })
    .catch(() => null);
  if (!session) return null;
  const user = session.user as { id: string; name: string; email: string; role?: string | null; createdAt: Date; disabledAt?: Date | string | null };
  if (user.disabledAt) return null;
  const [otherSessions, credential] = await Promise.all([
    database.prisma.session.count({ where: { userId: user.id, expiresAt: { gt: new Date() }, NOT: { id: session.session.id } } }),
    database.prisma.account.findFirst({ where: { userId: user.id, providerId: "credential" }, select: { password: true } }),
  ]);
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role && isPersonRole(user.role) ? user.role : "user",
    createdAt: new Date(user.createdAt),
    hasPassword: Boolean(credential?.password),
    otherSessions,
  };
}
