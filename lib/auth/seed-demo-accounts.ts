import type { Database } from "../db/client";
import { createAuth } from "./better-auth";
import type { PersonRole } from "./permissions";

/**
 * Demo accounts for the embedded database: one per role (two users, to show that one cannot see the other's
 * tasks). Idempotent: an existing account is left as it is (its password is not reset). The passwords are
 * demo values printed by `npm start`; STOPLINE_DEMO_PASSWORD replaces all of them.
 */
export interface DemoAccount {
  email: string;
  name: string;
  role: PersonRole;
  password: string;
}

export function demoAccounts(env: NodeJS.ProcessEnv = process.env): DemoAccount[] {
  const password = (role: string) => env.STOPLINE_DEMO_PASSWORD || `stopline-${role}-demo`;
  return [
    { email: "user@stopline.local", name: "Uma User", role: "user", password: password("user") },
    { email: "user2@stopline.local", name: "Ulf Second-User", role: "user", password: password("user2") },
    { email: "operator@stopline.local", name: "Otto Operator", role: "operator", password: password("operator") },
    { email: "support@stopline.local", name: "Sam Support", role: "support", password: password("support") },
    { email: "admin@stopline.local", name: "Ada Admin", role: "admin", password: password("admin") },
  ];
}

/** Creates the accounts that do not exist yet; returns which were created. */
export async function seedDemoAccounts(database: Database, accounts: DemoAccount[] = demoAccounts()): Promise<{ created: string[]; accounts: DemoAccount[] }> {
  const ctx = await createAuth(database).$context;
  const created: string[] = [];
  for (const account of accounts) {
    const existing = await database.prisma.user.findUnique({ where: { email: account.email }, select: { id: true } });
    if (existing) continue;
    const user = await ctx.internalAdapter.createUser(
      { email: account.email, name: account.name, emailVerified: true, role: account.role },
      { method: "admin" },
    );
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: await ctx.password.hash(account.password),
    });
    created.push(account.email);
  }
  return { created, accounts };
}

/**
 * The demo accounts that still sign in with their published password (enabled, password unchanged): on a
 * server that others can reach, each of them is an open door — the admin one above all (see scripts/start.ts).
 */
export async function demoAccountsStillPublished(database: Database, accounts: DemoAccount[] = demoAccounts()): Promise<string[]> {
  const ctx = await createAuth(database).$context;
  const open: string[] = [];
  for (const account of accounts) {
    const user = await database.prisma.user.findUnique({ where: { email: account.email }, select: { id: true, disabledAt: true } });
    if (!user || user.disabledAt) continue;
    const credential = await database.prisma.account.findFirst({ where: { userId: user.id, providerId: "credential" }, select: { password: true } });
    if (credential?.password && (await ctx.password.verify({ hash: credential.password, password: account.password }))) open.push(account.email);
  }
  return open;
}
