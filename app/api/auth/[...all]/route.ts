import { auth } from "@/lib/auth/better-auth";

// Better Auth's own endpoints: /api/auth/sign-in/email, /api/auth/sign-out, /api/auth/get-session, …
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = (request: Request) => auth().handler(request);
export const POST = (request: Request) => auth().handler(request);
