import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { settleIntentsAfterAnswer } from "@/lib/ledger/resource-intents";

export const POST = withRoute(contract.settleResourceIntents, async ({ database, principal, params, body }) => ({
  intents: await settleIntentsAfterAnswer(database, { workItemId: params.id, leaseToken: body.leaseToken, actor: actorOf(principal) }),
}));
