import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { accountView, findAccount, inAccountTransaction, type AccountView } from "./account-admin";

/** Enables a disabled account: the person can sign in again (with the password they had). 409 if it is enabled. */
export async function enableAccount(database: Database, id: string): Promise<AccountView> {
  return inAccountTransaction(database, async (tx) => {
    const user = await findAccount(tx, id);
    if (!user.disabledAt) throw new AppError(ErrorCode.conflict, `the account ${user.email} is not disabled`, { accountId: id });
    await tx.user.update({ where: { id }, data: { disabledAt: null } });
    return accountView(tx, id);
  });
}
