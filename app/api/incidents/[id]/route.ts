import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { getIncident } from "@/lib/incidents/get-incident";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.getIncident, async ({ database, params }) => getIncident(database, params.id));
