import { APIError } from "better-auth/api";
import type { Database } from "../db/client";

export const ACCOUNT_DISABLED_MESSAGE = "This account is disabled. Ask an administrator to enable it again.";

/**
 * Better Auth's session.create.before hook: a disabled account gets no session. It runs after the password
 * was verified, so a wrong password still reads "do not match" and the hook tells nobody but the account's
 * owner that the account exists and is disabled. The sign-in endpoint answers 403 with this message.
 */
export async function refuseDisabledAccount(database: Database, userId: string): Promise<void> {
  const user = await database.prisma.user.findUnique({ where: { id: userId }, select: { disabledAt: true } });
  if (user?.disabledAt) throw new APIError("FORBIDDEN", { code: "ACCOUNT_DISABLED", message: ACCOUNT_DISABLED_MESSAGE });
}
