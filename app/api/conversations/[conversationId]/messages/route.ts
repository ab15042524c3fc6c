import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { assertConversationAccess, ownerForConversation } from "@/lib/auth/ownership";
import { startTurn } from "@/lib/agent/conversation";
import { demoAgent } from "@/lib/agent/demo-agent";

export const POST = withRoute(contract.sendMessage, async ({ database, principal, params, body }) => {
  await assertConversationAccess(database, principal, params.conversationId);
  const ownerId = await ownerForConversation(database, principal, params.conversationId);
  return startTurn(database, demoAgent(), {
    ownerId,
    conversationId: params.conversationId,
    text: body.text,
    turnId: body.turnId,
    actor: actorOf(principal),
    createdById: principalRef(principal),
  });
});
