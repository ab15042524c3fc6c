import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { holdResource } from "@/lib/ledger/resources";

export const POST = withRoute(contract.holdResource, ({ database, principal, params, body }) =>
  holdResource(database, { workItemId: params.id, leaseToken: body.leaseToken, type: body.type, handle: body.handle, actor: actorOf(principal) }),
);
