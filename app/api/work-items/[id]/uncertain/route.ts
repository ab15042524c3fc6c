import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { markUncertain } from "@/lib/ledger/mark-uncertain";

export const POST = withRoute(contract.markUncertain, ({ database, principal, params, body }) =>
  markUncertain(database, { workItemId: params.id, leaseToken: body.leaseToken, reason: body.reason, actor: actorOf(principal) }),
);
