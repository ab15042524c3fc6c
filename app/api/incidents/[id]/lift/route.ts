import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { requestLift } from "@/lib/incidents/lift-incident";

export const POST = withRoute(contract.requestIncidentLift, async ({ database, principal, params, body }) =>
  requestLift(database, { incidentId: params.id, reason: body.reason, actor: actorOf(principal), actorId: principalRef(principal) }),
);
