import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { recordResourceIntents } from "@/lib/ledger/resource-intents";

export const POST = withRoute(contract.intendResources, async ({ database, principal, params, body }) => ({
  intents: (await recordResourceIntents(database, { workItemId: params.id, leaseToken: body.leaseToken, types: body.types, actor: actorOf(principal) })).length,
}));
