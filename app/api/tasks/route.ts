import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf, principalRef } from "@/lib/auth/tokens";
import { ownerForConversation, ownerScope } from "@/lib/auth/ownership";
import { createTask } from "@/lib/ledger/create-task";
import { listTasks } from "@/lib/ledger/queries";

export const POST = withRoute(contract.createTask, async ({ database, principal, body }) =>
  createTask(
    database,
    { ...body, ownerId: body.ownerId ?? (await ownerForConversation(database, principal, body.conversationId)), createdById: principalRef(principal) },
    actorOf(principal),
  ),
);

export const GET = withRoute(contract.listTasks, async ({ database, principal, query }) => {
  const { tasks, nextCursor } = await listTasks(database, {
    stage: query.status,
    conversationId: query.conversationId,
    ownerId: ownerScope(principal),
    limit: query.limit,
    before: query.before,
  });
  return { tasks, nextCursor };
});
