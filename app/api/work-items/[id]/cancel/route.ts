import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertWorkItemAccess } from "@/lib/auth/ownership";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { requestChildCancellation } from "@/lib/cancellation/request-child-cancellation";

export const POST = withRoute(contract.stopWorkItem, async ({ database, principal, params, body }) => {
  await assertWorkItemAccess(database, principal, params.id);
  return requestChildCancellation(database, { workItemId: params.id, reason: body.reason, actor: actorOf(principal), actorId: principalRef(principal) });
});
