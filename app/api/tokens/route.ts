import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { bootstrapTokenStatus, listApiTokens } from "@/lib/auth/list-api-tokens";
import { createApiToken } from "@/lib/auth/tokens";

export const GET = withRoute(contract.listTokens, async ({ database }) => ({ tokens: await listApiTokens(database), bootstrap: bootstrapTokenStatus() }));
export const POST = withRoute(contract.createToken, ({ database, body, principal }) => createApiToken(database, body, principal));
