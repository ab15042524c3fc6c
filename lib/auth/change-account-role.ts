import type { Database } from "../db/client";
import { assertAnotherAdminRemains, accountView, findAccount, inAccountTransaction, type AccountView } from "./account-admin";
import { AdminEvent, adminEvent } from "./admin-events";
import type { PersonRole } from "./permissions";
import { actorOf, type Principal } from "./tokens";

/**
 * Changes a person's role. It takes effect on their next request: every request reads the role from the
 * database with the session (no role is cached in the cookie). The last enabled admin keeps the role (409).
 * The change and its `account.role_changed` event (from → to, by whom) commit together; asking for the role
 * the account already has changes nothing and records nothing.
 */
export async function changeAccountRole(database: Database, id: string, role: PersonRole, by: Principal): Promise<AccountView> {
  return inAccountTransaction(database, async (w) => {
    const user = await findAccount(w.tx, id);
    if (user.role === role) return accountView(w.tx, id);
    if (role !== "admin") await assertAnotherAdminRemains(w.tx, user, `taking the admin role from ${user.email}`);
    await w.tx.user.update({ where: { id }, data: { role } });
    await w.event(
      adminEvent(AdminEvent.accountRoleChanged, {
        entityId: id,
        actor: actorOf(by),
        fromState: user.role,
        toState: role,
        data: { email: user.email, name: user.name, from: user.role, to: role },
      }),
    );
    return accountView(w.tx, id);
  });
}
