import type { Database } from "../db/client";
import { ACCOUNT_FIELDS, type AccountView } from "./account-admin";

/** Every person's account, enabled ones first, then by name; with how many unexpired sessions each has. */
export async function listAccounts(database: Database, now = new Date()): Promise<AccountView[]> {
  const users = await database.prisma.user.findMany({
    select: { ...ACCOUNT_FIELDS, _count: { select: { sessions: { where: { expiresAt: { gt: now } } } } } },
    orderBy: [{ name: "asc" }, { email: "asc" }],
  });
  return users
    .map(({ _count, ...user }) => ({ ...user, activeSessions: _count.sessions }))
    .sort((a, b) => Number(a.disabledAt !== null) - Number(b.disabledAt !== null));
}
