import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { registerToolHost } from "@/lib/tools/hosted/register-tool-host";

export const POST = withRoute(contract.registerToolHost, ({ database, principal, body }) =>
  registerToolHost(database, { hostId: body.hostId, principalId: principal.id, tools: body.tools, leaseMs: body.leaseMs ?? 30_000 }),
);
