import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { openApiJson } from "@/lib/api/openapi";

export const GET = withRoute(contract.openapi, async () => new Response(openApiJson(), { headers: { "Content-Type": "application/json" } }));
