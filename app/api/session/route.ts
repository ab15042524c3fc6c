import { contract } from "@/lib/api/contract";
import { readCookie, SESSION_COOKIE, withRoute } from "@/lib/api/route";
import { endConsoleSession } from "@/lib/auth/console-session";
import { sessionCookie, signInWithToken } from "@/lib/auth/sign-in";

// The cookie holds a console session id (lib/auth/console-session.ts), never the admin token.
export const POST = withRoute(contract.createSession, async ({ request, database, body }) => {
  const { principal, session } = await signInWithToken(database, body.token, request);
  return Response.json({ name: principal.name, role: principal.role }, { headers: { "Set-Cookie": sessionCookie(SESSION_COOKIE, session.id, request) } });
});

export const DELETE = withRoute(contract.deleteSession, async ({ request, database }) => {
  const id = readCookie(request, SESSION_COOKIE);
  if (id) await endConsoleSession(database, id);
  return new Response(null, { status: 204, headers: { "Set-Cookie": sessionCookie(SESSION_COOKIE, "", request, 0) } });
});
