import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { getServiceFaults, setServiceFaults } from "@/lib/demo/control";

export const GET = withRoute(contract.getDemoFaults, async ({ params }) => ({ service: params.service, faults: await getServiceFaults(params.service) }));
export const POST = withRoute(contract.setDemoFaults, async ({ params, body }) => ({
  service: params.service,
  faults: await setServiceFaults(params.service, body),
}));
