import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { confirmLift } from "@/lib/incidents/lift-incident";

export const POST = withRoute(contract.confirmIncidentLift, async ({ database, principal, params }) =>
  confirmLift(database, { incidentId: params.id, actor: actorOf(principal), actorId: principalRef(principal) }),
);
