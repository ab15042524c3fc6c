import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { accountFacts, assertAnotherAdminRemains, accountView, findAccount, inAccountTransaction, isSelf, type AccountView } from "./account-admin";
import { AdminEvent, adminEvent } from "./admin-events";
import { actorOf, type Principal } from "./tokens";

/**
 * Disables a person's account: sets disabledAt and deletes every session of theirs in the same transaction,
 * so each browser where they are signed in is signed out on its next request. Sign-in is refused from then on
 * (lib/auth/refuse-disabled-account.ts), and a session is not honoured while disabledAt is set
 * (lib/auth/person.ts). The account and its history stay; enableAccount undoes this. The `account.disabled`
 * event (by whom, how many sessions ended) commits with it.
 * Refused (409, nothing written): disabling yourself, the last enabled admin, an account that is already disabled.
 */
export async function disableAccount(database: Database, id: string, by: Principal): Promise<AccountView> {
  return inAccountTransaction(database, async (w) => {
    const user = await findAccount(w.tx, id);
    if (isSelf(by, id)) throw new AppError(ErrorCode.conflict, "you cannot disable your own account; ask another admin", { accountId: id, reason: "self" });
    if (user.disabledAt) {
      throw new AppError(ErrorCode.conflict, `the account ${user.email} was already disabled at ${user.disabledAt.toISOString()}`, {
        accountId: id,
        disabledAt: user.disabledAt.toISOString(),
      });
    }
    await assertAnotherAdminRemains(w.tx, user, `disabling ${user.email}`);
    await w.tx.user.update({ where: { id }, data: { disabledAt: new Date() } });
    const sessions = await w.tx.session.deleteMany({ where: { userId: id } });
    await w.event(
      adminEvent(AdminEvent.accountDisabled, {
        entityId: id,
        actor: actorOf(by),
        fromState: "enabled",
        toState: "disabled",
        data: { ...accountFacts(user), sessionsEnded: sessions.count },
      }),
    );
    return accountView(w.tx, id);
  });
}
