import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertConversationAccess, isOwnerScoped, ownerIdOf } from "@/lib/auth/ownership";
import { actorOf } from "@/lib/auth/tokens";
import { stopTurn } from "@/lib/agent/stop-turn";

export const POST = withRoute(contract.stopTurn, async ({ database, principal, params, body }) => {
  await assertConversationAccess(database, principal, params.conversationId);
  return stopTurn(database, {
    conversationId: params.conversationId, turnId: params.turnId, ownerId: ownerIdOf(principal), text: body.text, reason: body.reason,
    actor: actorOf(principal), mayStopOthers: !isOwnerScoped(principal),
  });
});
