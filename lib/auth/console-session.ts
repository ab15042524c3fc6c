import { createHash, randomBytes } from "node:crypto";
import type { Database } from "../db/client";
import { TokenRole } from "../ledger/states";
import type { Principal } from "./tokens";

/** How long a console session (and a person's sign-in) lasts. */
export const SESSION_MAX_AGE_S = 8 * 60 * 60;

/**
 * Console sessions of admin API tokens (issue 11, safe defaults): the `stopline_session` cookie holds a random
 * session id — never the token itself, which a stolen cookie or a log line would otherwise give away for good.
 * Only the id's SHA-256 is stored (ConsoleSession). A session ends when it expires (8 h), on sign-out, or the
 * moment its token is revoked (the token is checked on every request).
 */
const hash = (id: string) => createHash("sha256").update(id).digest("hex");

/** A new session for an authenticated admin token; returns the id to put in the cookie. */
export async function createConsoleSession(database: Database, principal: Principal): Promise<{ id: string; expiresAt: Date }> {
  const id = `sls_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
  await database.prisma.consoleSession.deleteMany({ where: { expiresAt: { lt: new Date() } } }); // tidy up as we go
  await database.prisma.consoleSession.create({ data: { idHash: hash(id), tokenId: principal.id, expiresAt } });
  return { id, expiresAt };
}

/** The admin token a console session stands for, or null (unknown, expired, token revoked or no longer admin). */
export async function authenticateConsoleSession(database: Database, id: string): Promise<Principal | null> {
  if (!id.startsWith("sls_") || id.length > 100) return null;
  const session = await database.prisma.consoleSession.findUnique({ where: { idHash: hash(id) } });
  if (!session || session.expiresAt.getTime() <= Date.now()) return null;
  if (session.tokenId === "bootstrap") {
    const bootstrap = process.env.STOPLINE_BOOTSTRAP_TOKEN;
    return bootstrap && bootstrap.length >= 16 ? { id: "bootstrap", name: "bootstrap", role: TokenRole.admin } : null;
  }
  const token = await database.prisma.apiToken.findUnique({ where: { id: session.tokenId }, select: { id: true, name: true, role: true, revokedAt: true } });
  if (!token || token.revokedAt || token.role !== TokenRole.admin) return null;
  return { id: token.id, name: token.name, role: TokenRole.admin };
}

/** Sign-out: the session is gone (the cookie alone opens nothing any more). */
export async function endConsoleSession(database: Database, id: string): Promise<void> {
  await database.prisma.consoleSession.deleteMany({ where: { idHash: hash(id) } });
}
