import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { writeLedger } from "../ledger/write";
import { accountView, type AccountView } from "./account-admin";
import { AdminEvent, adminEvent } from "./admin-events";
import { createAuth } from "./better-auth";
import type { PersonRole } from "./permissions";
import { actorOf, type Principal } from "./tokens";

export interface CreateAccountInput {
  name: string;
  /** Already trimmed and lower-cased (the schema does it; Better Auth compares e-mail addresses lower-cased). */
  email: string;
  role: PersonRole;
  /** The initial password: hashed by Better Auth (scrypt), never stored or logged as given. */
  password: string;
}

const duplicate = (email: string) =>
  new AppError(ErrorCode.conflict, `an account with the e-mail address ${email} already exists; change its role or enable it instead`, {
    field: "email",
    email,
  });

/**
 * Creates a person's account the way Better Auth does for an e-mail + password sign-up: the user row through
 * its internal adapter (so its hooks and field rules apply), then the credential account with a hash from
 * Better Auth's own password hasher. The address is marked verified: an administrator vouches for it. Then the
 * `account.created` event records who created it (name, address, role — never the password).
 */
export async function createAccount(database: Database, input: CreateAccountInput, by: Principal): Promise<AccountView> {
  if (await database.prisma.user.findUnique({ where: { email: input.email }, select: { id: true } })) throw duplicate(input.email);
  const ctx = await createAuth(database).$context;
  const hash = await ctx.password.hash(input.password);
  let userId: string;
  try {
    const user = await ctx.internalAdapter.createUser({ email: input.email, name: input.name, emailVerified: true, role: input.role }, { method: "admin" });
    userId = user.id;
  } catch (error) {
    // Two admins creating the same address at once: the unique index decides, the loser gets the same 409.
    if (await database.prisma.user.findUnique({ where: { email: input.email }, select: { id: true } })) throw duplicate(input.email);
    throw error;
  }
  // No half-made account: nobody could sign in to one without a credential, and one without its event would
  // be a change the ledger never saw. Either failure removes the user again (its credential row cascades).
  const undo = async (error: unknown): Promise<never> => {
    await database.prisma.user.delete({ where: { id: userId } }).catch(() => {});
    throw error;
  };
  try {
    await ctx.internalAdapter.linkAccount({ userId, providerId: "credential", accountId: userId, password: hash });
  } catch (error) {
    return undo(error);
  }
  // Not the same transaction as the account: Better Auth's internal adapter writes through its own Prisma
  // adapter calls on the shared client (running its user.create hooks), which cannot join our interactive
  // transaction — and on SQLite a write from outside a transaction that holds the write lock would wait for
  // it. So the event is appended right after both rows exist, before the admin gets the answer.
  try {
    await writeLedger(database, (w) =>
      w.event(
        adminEvent(AdminEvent.accountCreated, {
          entityId: userId,
          actor: actorOf(by),
          toState: "enabled",
          data: { email: input.email, name: input.name, role: input.role },
        }),
      ),
    );
  } catch (error) {
    return undo(error);
  }
  return accountView(database.prisma, userId);
}
