import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { disableAccount } from "@/lib/auth/disable-account";

export const POST = withRoute(contract.disableAccount, ({ database, params, principal }) => disableAccount(database, params.id, principal));
