import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { confirmProposal } from "@/lib/agent/conversation";

export const POST = withRoute(contract.confirmProposal, ({ database, principal, params, body }) =>
  confirmProposal(database, { taskId: params.taskId, proposalVersion: body.proposalVersion, actor: actorOf(principal) }),
);
