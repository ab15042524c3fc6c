import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { revokeApiToken } from "@/lib/auth/tokens";

export const DELETE = withRoute(contract.revokeToken, ({ database, params, principal }) => revokeApiToken(database, params.id, principal));
