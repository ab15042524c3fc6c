import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { releaseResourceRequested } from "@/lib/ledger/resources";

export const POST = withRoute(contract.releaseResource, ({ database, principal, params, body }) =>
  releaseResourceRequested(database, {
    workItemId: params.id,
    leaseToken: body.leaseToken,
    type: body.type,
    handle: body.handle,
    actor: actorOf(principal),
    reason: "released by the running code (reported over HTTP); to be verified",
  }),
);
