import type { Database, Tx } from "../db/client";
import { writeLedger, type Writer } from "../ledger/write";
import { AppError, ErrorCode } from "../errors";
import { PersonRole } from "./permissions";
import type { Principal } from "./tokens";

/**
 * Shared rules of account administration (create, change role, disable, enable): the fields the API shows,
 * one serialised transaction for changes that must keep at least one admin, and the guard itself.
 */

/** What the API shows of a person's account: never a password hash (that lives in Account, not selected). */
export const ACCOUNT_FIELDS = { id: true, name: true, email: true, role: true, createdAt: true, disabledAt: true } as const;

export interface AccountView {
  id: string;
  name: string;
  email: string;
  role: string;
  createdAt: Date;
  disabledAt: Date | null;
  /** Sessions that have not expired yet (browsers where the person is signed in). */
  activeSessions: number;
}

/** The account row with its count of unexpired sessions. */
export async function accountView(tx: Pick<Tx, "user">, id: string, now = new Date()): Promise<AccountView> {
  const user = await tx.user.findUniqueOrThrow({
    where: { id },
    select: { ...ACCOUNT_FIELDS, _count: { select: { sessions: { where: { expiresAt: { gt: now } } } } } },
  });
  const { _count, ...rest } = user;
  return { ...rest, activeSessions: _count.sessions };
}

/**
 * Runs an account change and its ledger event in one transaction (writeLedger), serialised against every
 * other account change. Without that, two admins demoting each other at the same moment could each see the
 * other still an admin and leave none. SQLite has one writer at a time (BEGIN IMMEDIATE, lib/db/sqlite-adapter.ts);
 * on PostgreSQL every account change takes one transaction-scoped advisory lock first (account changes are
 * rare; ledger writes never wait on it). A change refused inside `fn` (it throws) rolls back and leaves no event.
 */
export function inAccountTransaction<T>(database: Database, fn: (w: Writer) => Promise<T>): Promise<T> {
  return writeLedger(database, async (w) => {
    if (w.provider === "postgres") await w.tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${ACCOUNT_CHANGES_LOCK})`);
    return fn(w);
  });
}

// The PostgreSQL advisory lock key that serialises account changes (see inAccountTransaction).
const ACCOUNT_CHANGES_LOCK = 724_203;

/** The facts an account event records about the account: never a password or its hash. */
export const accountFacts = (user: { email: string; name: string; role: string }) => ({ email: user.email, name: user.name, role: user.role });

/** The account to change, or a 404. */
export async function findAccount(tx: Pick<Tx, "user">, id: string) {
  const user = await tx.user.findUnique({ where: { id }, select: ACCOUNT_FIELDS });
  if (!user) throw new AppError(ErrorCode.notFound, `there is no account ${id}`, { accountId: id });
  return user;
}

/**
 * Refuses a change that would leave no enabled admin account (nobody could then administer Stopline from the
 * browser): `user` is the account about to stop being an enabled admin.
 */
export async function assertAnotherAdminRemains(tx: Pick<Tx, "user">, user: { id: string; role: string; disabledAt: Date | null }, what: string) {
  if (user.role !== PersonRole.admin || user.disabledAt) return;
  const others = await tx.user.count({ where: { role: PersonRole.admin, disabledAt: null, id: { not: user.id } } });
  if (others === 0) {
    throw new AppError(ErrorCode.conflict, `${what} would leave no enabled admin account; make another account an admin first`, {
      accountId: user.id,
      reason: "last_admin",
    });
  }
}

/** Is the principal this very account (a person signed in as it)? Tokens are never an account. */
export const isSelf = (principal: Principal, accountId: string) => principal.kind === "person" && principal.id === accountId;
