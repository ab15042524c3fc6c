import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { listIncidents } from "@/lib/incidents/get-incident";
import { openIncident } from "@/lib/incidents/open-incident";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.listIncidents, async ({ database }) => ({ incidents: await listIncidents(database) }));
export const POST = withRoute(contract.openIncident, async ({ database, principal, body }) =>
  openIncident(database, {
    targetKind: body.targetKind,
    target: body.target,
    reason: body.reason,
    actor: actorOf(principal),
    actorId: principalRef(principal),
  }),
);
