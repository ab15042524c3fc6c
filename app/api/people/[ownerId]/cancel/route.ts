import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertPersonAccess } from "@/lib/auth/ownership";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { stopMany } from "@/lib/cancellation/stop-many";
import { StopScope } from "@/lib/ledger/states";

export const POST = withRoute(contract.stopPerson, async ({ principal, database, params, body }) => {
  assertPersonAccess(principal, params.ownerId);
  return stopMany(database, {
    scope: StopScope.person,
    ref: params.ownerId,
    where: { ownerId: params.ownerId },
    reason: body.reason,
    actor: actorOf(principal),
    actorId: principalRef(principal),
  });
});
