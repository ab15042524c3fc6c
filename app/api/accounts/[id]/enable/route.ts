import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { enableAccount } from "@/lib/auth/enable-account";

export const POST = withRoute(contract.enableAccount, ({ database, params, principal }) => enableAccount(database, params.id, principal));
