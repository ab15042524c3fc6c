import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { editProposal } from "@/lib/agent/conversation";
import { demoAgent } from "@/lib/agent/demo-agent";

export const POST = withRoute(contract.editProposal, ({ database, principal, params, body }) =>
  editProposal(database, demoAgent(), { taskId: params.taskId, items: body.items, expectedVersion: body.expectedVersion, actor: actorOf(principal) }),
);
