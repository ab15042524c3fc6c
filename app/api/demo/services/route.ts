import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { listDemoServices } from "@/lib/demo/control";

/** The demo services with their fault controls in force (read from the services themselves). */
export const GET = withRoute(contract.listDemoServices, () => listDemoServices());
