import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { createApiToken } from "@/lib/auth/tokens";

export const POST = withRoute(contract.createToken, ({ database, body }) => createApiToken(database, body));
