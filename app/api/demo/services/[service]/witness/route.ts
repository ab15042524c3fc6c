import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { recentWitness } from "@/lib/demo/control";

/** What the service really did, from its own witness log. */
export const GET = withRoute(contract.demoWitness, ({ params, query }) => recentWitness(params.service, query));
