import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { accountFacts, accountView, findAccount, inAccountTransaction, type AccountView } from "./account-admin";
import { AdminEvent, adminEvent } from "./admin-events";
import { actorOf, type Principal } from "./tokens";

/**
 * Enables a disabled account: the person can sign in again (with the password they had). 409 if it is enabled.
 * The `account.enabled` event (by whom, disabled since when) commits with it.
 */
export async function enableAccount(database: Database, id: string, by: Principal): Promise<AccountView> {
  return inAccountTransaction(database, async (w) => {
    const user = await findAccount(w.tx, id);
    if (!user.disabledAt) throw new AppError(ErrorCode.conflict, `the account ${user.email} is not disabled`, { accountId: id });
    await w.tx.user.update({ where: { id }, data: { disabledAt: null } });
    await w.event(
      adminEvent(AdminEvent.accountEnabled, {
        entityId: id,
        actor: actorOf(by),
        fromState: "disabled",
        toState: "enabled",
        data: { ...accountFacts(user), disabledSince: user.disabledAt.toISOString() },
      }),
    );
    return accountView(w.tx, id);
  });
}
