import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { onEngine, type Database } from "../db/client";
import { Coalescer, coalescerPerOwner } from "../db/coalesce";
import type { PgDirect } from "../db/pg";
import { AppError, ErrorCode } from "../errors";
import { TokenRole } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { AdminEvent, adminEvent } from "./admin-events";
import type { Role } from "./permissions";
import { tokenIncident, tokenIncidentOnPg, type ActiveIncident } from "../incidents/quarantine";

export interface Principal {
  /** Token id, "bootstrap" for STOPLINE_BOOTSTRAP_TOKEN, or a person's user id. */
  id: string;
  /** Token name, or a person's e-mail address. */
  name: string;
  /** A token role (admin | agent | worker) or a person role (user | operator | support | admin). */
  role: Role;
  /** "person" for a signed-in account (Better Auth session); absent for API tokens. */
  kind?: "token" | "person";
}

/** How a principal is named in the ledger's history: role and name ("operator:ops@example.com"), for people to read. */
export const actorOf = (p: Principal) => `${p.role}:${p.name}`;

/**
 * Who a principal is, by an id that never changes: "person:<user id>" or "token:<token id>". Rules about the
 * same person or client (maker-checker) compare this — never actorOf, whose role part changes with a
 * promotion and whose name part is not unique for tokens.
 */
export const principalRef = (p: Principal) => (p.kind === "person" ? `person:${p.id}` : tokenRef(p.id));
/** The principalRef of an API token, from its id. */
export const tokenRef = (tokenId: string) => `token:${tokenId}`;

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Who made a token outside the API — `npm run token:create` on the server, test and bench fixtures — where no
 * signed-in principal exists: the person with shell access to the machine.
 */
export const SETUP_ACTOR = "system:setup";

const tokenFacts = (r: { name: string; role: string; prefix: string }) => ({ name: r.name, role: r.role, prefix: r.prefix });

/**
 * Creates a bearer token. The token itself is returned once and never stored; only its SHA-256 is. The row and
 * its `token.created` event (who, which name, role and prefix — never the token or its hash) commit together.
 */
export async function createApiToken(database: Database, input: { name: string; role: TokenRole }, by?: Principal) {
  const token = `stl_${randomBytes(32).toString("base64url")}`;
  const record = await writeLedger(database, async (w) => {
    const row = await w.tx.apiToken.create({
      data: { name: input.name, role: input.role, tokenHash: hash(token), prefix: token.slice(0, 8) },
      select: { id: true, name: true, role: true, prefix: true, createdAt: true },
    });
    await w.event(adminEvent(AdminEvent.tokenCreated, { entityId: row.id, actor: by ? actorOf(by) : SETUP_ACTOR, toState: "active", data: tokenFacts(row) }));
    return row;
  });
  return { token, record };
}

/** What the API shows of a stored token: never its hash. */
export const API_TOKEN_FIELDS = { id: true, name: true, role: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/**
 * Revokes a token: from the next request on it authenticates nothing (authenticateToken reads revokedAt on
 * every call; nothing caches it). A conditional write, so two revocations cannot both succeed: an unknown id
 * is a 404, an already revoked token a 409 that says when. The revocation and its `token.revoked` event
 * commit together; a refused revocation writes neither.
 */
export async function revokeApiToken(database: Database, id: string, by: Principal) {
  return writeLedger(database, async (w) => {
    const [revoked] = await w.tx.apiToken.updateManyAndReturn({ where: { id, revokedAt: null }, data: { revokedAt: new Date() }, select: API_TOKEN_FIELDS });
    if (revoked) {
      await w.event(
        adminEvent(AdminEvent.tokenRevoked, { entityId: id, actor: actorOf(by), fromState: "active", toState: "revoked", data: tokenFacts(revoked) }),
      );
      return revoked;
    }
    const existing = await w.tx.apiToken.findUnique({ where: { id }, select: { revokedAt: true, name: true } });
    if (!existing) throw new AppError(ErrorCode.notFound, `there is no API token ${id}`, { tokenId: id });
    throw new AppError(ErrorCode.conflict, `the token "${existing.name}" was already revoked at ${existing.revokedAt!.toISOString()}`, {
      tokenId: id,
      revokedAt: existing.revokedAt!.toISOString(),
    });
  });
}

const sameSecret = (a: string, b: string) => {
  const [x, y] = [Buffer.from(hash(a)), Buffer.from(hash(b))];
  return timingSafeEqual(x, y);
};

/** A token's principal, and — when asked for (`quarantine: true`) — the kill switch on for that token, if any. */
export type TokenPrincipal = Principal & { quarantinedBy?: ActiveIncident | null };

type TokenRecord = { id: string; name: string; role: string; revokedAt: Date | null; lastUsedAt: Date | null };
type Found = TokenRecord & { incident?: ActiveIncident | null };

const TOKEN_COLUMNS = `t."tokenHash", t."id", t."name", t."role", t."revokedAt", t."lastUsedAt"`;
const byHash = (rows: (Found & { tokenHash: string })[]) => new Map<string, Found>(rows.map(({ tokenHash, ...rest }) => [tokenHash, rest]));
/** The tokens with these hashes. */
const tokensOnly = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer((hashes: string[]) =>
      pg
        .query<TokenRecord & { tokenHash: string }>(
          `SELECT ${TOKEN_COLUMNS} FROM "ApiToken" t WHERE t."tokenHash" = ANY($1::text[])`,
          [hashes],
          "stopline_tokens",
        )
        .then(byHash),
    ),
);
/** The tokens with these hashes, each with the kill switch on for it (if any). */
const tokensWithQuarantine = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(async (hashes: string[]) => {
      const rows = await pg.query<TokenRecord & { tokenHash: string; incident: (Omit<ActiveIncident, "createdAt"> & { createdAt: string }) | null }>(
        `SELECT ${TOKEN_COLUMNS}, to_jsonb(i) AS "incident" FROM "ApiToken" t LEFT JOIN LATERAL (${tokenIncidentOnPg(`t."id"`)}) i ON true WHERE t."tokenHash" = ANY($1::text[])`,
        [hashes],
        "stopline_tokens_and_quarantine",
      );
      return byHash(rows.map((row) => ({ ...row, incident: row.incident && { ...row.incident, createdAt: new Date(`${row.incident.createdAt}Z`) } })));
    }),
);

/**
 * The principal a raw token stands for, or null. STOPLINE_BOOTSTRAP_TOKEN is an admin token for a first start.
 * With `quarantine: true` (a route that starts work), also the kill switch on for the token: on PostgreSQL read in the
 * same statement as the token — every such request pays one round trip, not two.
 */
export async function authenticateToken(database: Database, raw: string, options: { quarantine?: boolean } = {}): Promise<TokenPrincipal | null> {
  if (!raw) return null;
  const bootstrap = process.env.STOPLINE_BOOTSTRAP_TOKEN;
  if (bootstrap && bootstrap.length >= 16 && sameSecret(raw, bootstrap)) {
    const principal: TokenPrincipal = { id: "bootstrap", name: "bootstrap", role: TokenRole.admin };
    if (options.quarantine) principal.quarantinedBy = await tokenIncident(database, principal.id);
    return principal;
  }
  // On every request: through the driver on PostgreSQL (Prisma's executor costs about a millisecond per statement),
  // the lookups of concurrent requests in one statement (lib/db/coalesce.ts).
  const record = await onEngine<Promise<Found | null>>(database, {
    postgres: async (pg) => (await (options.quarantine ? tokensWithQuarantine : tokensOnly)(pg).load(hash(raw))) ?? null,
    sqlite: async () => {
      const found = await database.prisma.apiToken.findUnique({ where: { tokenHash: hash(raw) } });
      return found && options.quarantine ? { ...found, incident: await tokenIncident(database, found.id) } : found;
    },
  });
  if (!record || record.revokedAt) return null;
  // Best effort and coarse (once a minute): last-use time is informational, not worth a write per request.
  if (!record.lastUsedAt || Date.now() - record.lastUsedAt.getTime() > 60_000) {
    await database.prisma.apiToken.update({ where: { id: record.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  const principal: TokenPrincipal = { id: record.id, name: record.name, role: record.role as TokenRole };
  if (options.quarantine) principal.quarantinedBy = record.incident ?? null;
  return principal;
}
