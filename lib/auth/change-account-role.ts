import type { Database } from "../db/client";
import { assertAnotherAdminRemains, accountView, findAccount, inAccountTransaction, type AccountView } from "./account-admin";
import type { PersonRole } from "./permissions";

/**
 * Changes a person's role. It takes effect on their next request: every request reads the role from the
 * database with the session (no role is cached in the cookie). The last enabled admin keeps the role (409).
 */
export async function changeAccountRole(database: Database, id: string, role: PersonRole): Promise<AccountView> {
  return inAccountTransaction(database, async (tx) => {
    const user = await findAccount(tx, id);
    if (user.role === role) return accountView(tx, id);
    if (role !== "admin") await assertAnotherAdminRemains(tx, user, `taking the admin role from ${user.email}`);
    await tx.user.update({ where: { id }, data: { role } });
    return accountView(tx, id);
  });
}
