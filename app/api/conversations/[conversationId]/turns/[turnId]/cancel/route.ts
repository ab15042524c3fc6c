import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertConversationAccess, isOwnerScoped, ownerForConversation } from "@/lib/auth/ownership";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { stopTurn } from "@/lib/agent/stop-turn";

export const POST = withRoute(contract.stopTurn, async ({ database, principal, params, body }) => {
  await assertConversationAccess(database, principal, params.conversationId);
  return stopTurn(database, {
    // The same owner the message would give its task (a person's conversation stays theirs).
    conversationId: params.conversationId,
    turnId: params.turnId,
    ownerId: await ownerForConversation(database, principal, params.conversationId),
    text: body.text,
    reason: body.reason,
    actor: actorOf(principal),
    actorId: principalRef(principal),
    mayStopOthers: !isOwnerScoped(principal),
  });
});
