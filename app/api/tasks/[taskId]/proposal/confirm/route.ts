import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { actorOf } from "@/lib/auth/tokens";
import { confirmProposal } from "@/lib/agent/conversation";

export const POST = withRoute(contract.confirmProposal, async ({ database, principal, params, body }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return confirmProposal(database, { taskId: params.taskId, proposalVersion: body.proposalVersion, actor: actorOf(principal) });
});
