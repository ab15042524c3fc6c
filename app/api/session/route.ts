import { contract } from "@/lib/api/contract";
import { SESSION_COOKIE, withRoute } from "@/lib/api/route";
import { sessionCookie, signInWithToken } from "@/lib/auth/sign-in";

export const POST = withRoute(contract.createSession, async ({ request, database, body }) => {
  const principal = await signInWithToken(database, body.token);
  return Response.json(
    { name: principal.name, role: principal.role },
    { headers: { "Set-Cookie": sessionCookie(SESSION_COOKIE, body.token, request) } },
  );
});

export const DELETE = withRoute(contract.deleteSession, async ({ request }) =>
  new Response(null, { status: 204, headers: { "Set-Cookie": sessionCookie(SESSION_COOKIE, "", request, 0) } }),
);
