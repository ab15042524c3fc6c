import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { requestReversal } from "@/lib/review/request-reversal";
import { appRegistry } from "@/lib/runtime/app-registry";

export const POST = withRoute(contract.requestReversal, async ({ database, principal, params, body }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return requestReversal(database, appRegistry(), principal, { taskId: params.taskId, reason: body.reason });
});
