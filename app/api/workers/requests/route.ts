import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { claimToolRequests } from "@/lib/tools/hosted/claim-tool-requests";

export const POST = withRoute(contract.claimToolRequests, async ({ database, principal, body, request }) => ({
  requests: await claimToolRequests(database, {
    hostId: body.hostId,
    principalId: principal.id,
    waitMs: body.waitMs ?? 10_000,
    max: body.max ?? 10,
    leaseMs: body.leaseMs ?? 30_000,
    signal: request.signal,
  }),
}));
