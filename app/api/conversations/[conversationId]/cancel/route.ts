import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertConversationAccess, ownerScope } from "@/lib/auth/ownership";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { stopMany } from "@/lib/cancellation/stop-many";
import { StopScope } from "@/lib/ledger/states";

export const POST = withRoute(contract.stopConversation, async ({ database, principal, params, body }) => {
  await assertConversationAccess(database, principal, params.conversationId);
  return stopMany(database, {
    scope: StopScope.conversation,
    ref: params.conversationId,
    where: { conversationId: params.conversationId, ownerId: ownerScope(principal) },
    reason: body.reason,
    actor: actorOf(principal),
    actorId: principalRef(principal),
  });
});
