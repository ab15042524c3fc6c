import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { actorOf } from "@/lib/auth/tokens";
import { finishTask, TaskEnding } from "@/lib/ledger/finish-task";

export const POST = withRoute(contract.failTask, async ({ database, principal, params, body }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return finishTask(database, { taskId: params.taskId, ending: TaskEnding.failed, reason: body.error, actor: actorOf(principal) });
});
