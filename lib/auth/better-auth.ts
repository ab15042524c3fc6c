import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomBytes } from "node:crypto";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "@better-auth/prisma-adapter";
import { db, type Database } from "../db/client";
import { refuseDisabledAccount } from "./refuse-disabled-account";
import { SESSION_MAX_AGE_S } from "./console-session";

/**
 * People's accounts: Better Auth (e-mail + password, scrypt hashes) with its Prisma adapter on the app's own
 * Prisma client, so users, sessions and credentials live in Stopline's database (models in prisma/models.prisma).
 * The session cookie holds a signed session token; the session itself is a database row (revocable).
 * Mounted at /api/auth/* (app/api/auth/[...all]/route.ts); lib/api/route.ts reads the session per request.
 */
export type Auth = ReturnType<typeof createAuth>;

/**
 * The secret that signs session cookies: BETTER_AUTH_SECRET, else derived from the bootstrap token that
 * `npm start` keeps for the embedded database (stable across restarts), else random for this process
 * (sessions then end when it restarts).
 */
function authSecret(): string {
  if (process.env.BETTER_AUTH_SECRET) return process.env.BETTER_AUTH_SECRET;
  const bootstrap = process.env.STOPLINE_BOOTSTRAP_TOKEN;
  if (bootstrap && bootstrap.length >= 16) return createHash("sha256").update(`stopline-auth:${bootstrap}`).digest("base64url");
  return ((globalThis as { stoplineAuthSecret?: string }).stoplineAuthSecret ??= randomBytes(32).toString("base64url"));
}

/**
 * Where Stopline is reached: BETTER_AUTH_URL when it is set (behind a proxy, set it); otherwise the request's own
 * host when it is this machine (localhost / 127.0.0.1 on any port) or one of STOPLINE_ALLOWED_HOSTS, and
 * http://localhost:PORT for any other host.
 */
function authBaseURL() {
  if (process.env.BETTER_AUTH_URL) return process.env.BETTER_AUTH_URL;
  const extra =
    process.env.STOPLINE_ALLOWED_HOSTS?.split(",")
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  return {
    allowedHosts: ["localhost", "localhost:*", "127.0.0.1", "127.0.0.1:*", "[::1]:*", ...extra],
    fallback: `http://localhost:${process.env.PORT ?? 3000}`,
  };
}

export function createAuth(database: Database) {
  return betterAuth({
    appName: "Stopline",
    secret: authSecret(),
    baseURL: authBaseURL(),
    basePath: "/api/auth",
    database: prismaAdapter(database.prisma as never, { provider: database.provider === "sqlite" ? "sqlite" : "postgresql" }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, disableSignUp: process.env.STOPLINE_OPEN_SIGNUP !== "1" },
    user: {
      // The role is set by an administrator (or the demo seed), never by the person signing up.
      // disabledAt: set by an administrator (lib/auth/disable-account.ts); read with every session (lib/auth/person.ts).
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "user", input: false },
        disabledAt: { type: "date", required: false, input: false },
      },
    },
    // A disabled account gets no new session, whichever way it signs in (checked after the password).
    databaseHooks: { session: { create: { before: (session) => refuseDisabledAccount(database, session.userId) } } },
    session: { expiresIn: SESSION_MAX_AGE_S, updateAge: 60 * 60 },
    // This site only: the Origin of a cookie-authenticated write must be the server's own (CSRF).
    trustedOrigins: (request) => {
      const own: string[] = [];
      if (request) {
        const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
        const proto = request.headers.get("x-forwarded-proto") ?? new URL(request.url).protocol.replace(":", "");
        if (host) own.push(`${proto}://${host}`);
        own.push(new URL(request.url).origin);
      }
      return [
        ...own,
        ...(process.env.BETTER_AUTH_TRUSTED_ORIGINS?.split(",")
          .map((s) => s.trim())
          .filter(Boolean) ?? []),
      ];
    },
    rateLimit: { enabled: true, window: 60, max: 300, customRules: { "/sign-in/email": { window: 60, max: 30 } } },
    // Better Auth answers an unexpected error with a bare 500; remember it so that handleAuthRequest can say
    // what it was (the database being unavailable is a 503 with Retry-After, not a 500).
    onAPIError: {
      onError: (error) => {
        const store = authErrors.getStore();
        if (store) store.error = error;
        if (!(error && typeof error === "object" && "statusCode" in error)) console.error("[better-auth]", error);
      },
    },
    // Said explicitly (Better Auth's own default reads NODE_ENV when its module loads): npm start's server runs the
    // same handlers through its API lane and through Next.js, and both must name the session cookie alike.
    advanced: { useSecureCookies: process.env.NODE_ENV === "production", defaultCookieAttributes: { sameSite: "lax", httpOnly: true } },
    telemetry: { enabled: false },
  });
}

/** The unexpected error of the Better Auth request being handled (set by onAPIError, read by handleAuthRequest). */
export const authErrors = new AsyncLocalStorage<{ error?: unknown }>();

const cache = new WeakMap<Database, Auth>();

/** Better Auth on the process-wide database (or the one given). */
export function auth(database: Database = db()): Auth {
  let instance = cache.get(database);
  if (!instance) cache.set(database, (instance = createAuth(database)));
  return instance;
}
