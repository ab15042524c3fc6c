import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { listIncidentTargets } from "@/lib/incidents/list-targets";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.listIncidentTargets, async ({ database }) => listIncidentTargets(database));
