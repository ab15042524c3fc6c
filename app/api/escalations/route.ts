import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { listDeliveries } from "@/lib/escalation/list-deliveries";

export const GET = withRoute(contract.listEscalations, async ({ database, query, principal }) => ({
  deliveries: await listDeliveries(database, query, principal),
}));
