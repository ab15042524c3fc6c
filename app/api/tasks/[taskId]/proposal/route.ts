import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { actorOf } from "@/lib/auth/tokens";
import { editProposal } from "@/lib/agent/conversation";
import { demoAgent } from "@/lib/agent/demo-agent";

export const POST = withRoute(contract.editProposal, async ({ database, principal, params, body }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return editProposal(database, demoAgent(), { taskId: params.taskId, items: body.items, expectedVersion: body.expectedVersion, actor: actorOf(principal) });
});
