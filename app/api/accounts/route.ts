import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { createAccount } from "@/lib/auth/create-account";
import { listAccounts } from "@/lib/auth/list-accounts";

export const GET = withRoute(contract.listAccounts, async ({ database }) => ({ accounts: await listAccounts(database) }));
export const POST = withRoute(contract.createAccount, ({ database, body, principal }) => createAccount(database, body, principal));
