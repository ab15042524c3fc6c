import type { Database } from "../db/client";
import { auth } from "./better-auth";
import { isPersonRole } from "./permissions";
import type { Principal } from "./tokens";

/** The person signed in with a Better Auth session cookie in these headers, or null. */
export async function authenticateSession(database: Database, headers: Headers): Promise<Principal | null> {
  if (!/better-auth\.session_token=/.test(headers.get("cookie") ?? "")) return null; // also matches the __Secure- name
  const session = await auth(database)
    .api.getSession({ headers })
    .catch(() => null);
  if (!session) return null;
  const user = session.user as { id: string; email: string; role?: string | null; disabledAt?: Date | string | null };
  // Disabling deletes the sessions; this also covers a session created in the instant before the disable.
  if (user.disabledAt) return null;
  const role = user.role && isPersonRole(user.role) ? user.role : "user";
  return { id: user.id, name: user.email, role, kind: "person" };
}
