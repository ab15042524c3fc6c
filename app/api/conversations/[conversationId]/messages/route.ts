import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { startTurn } from "@/lib/agent/conversation";
import { demoAgent } from "@/lib/agent/demo-agent";

export const POST = withRoute(contract.sendMessage, ({ database, principal, params, body }) =>
  startTurn(database, demoAgent(), { ownerId: principal.name, conversationId: params.conversationId, text: body.text, actor: actorOf(principal) }),
);
