import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { requestCancellation } from "@/lib/cancellation/request-cancellation";

export const POST = withRoute(contract.cancelTask, ({ database, principal, params, body }) =>
  requestCancellation(database, { taskId: params.taskId, reason: body.reason, actor: actorOf(principal) }),
);
