import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { requestCancellation } from "@/lib/cancellation/steps/1-record-boundary";

export const POST = withRoute(contract.cancelTask, async ({ database, principal, params, body }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return requestCancellation(database, { taskId: params.taskId, reason: body.reason, actor: actorOf(principal), actorId: principalRef(principal) });
});
