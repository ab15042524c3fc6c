import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { openApiDocument } from "@/lib/api/openapi";

export const GET = withRoute(contract.openapi, async () => openApiDocument());
