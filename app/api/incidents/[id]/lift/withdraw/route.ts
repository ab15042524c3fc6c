import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { withdrawLift } from "@/lib/incidents/lift-incident";

export const POST = withRoute(contract.withdrawIncidentLift, async ({ database, principal, params }) =>
  withdrawLift(database, { incidentId: params.id, actor: actorOf(principal), actorId: principalRef(principal) }),
);
