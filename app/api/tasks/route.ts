import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { createTask } from "@/lib/ledger/create-task";
import { listTasks } from "@/lib/ledger/queries";

export const POST = withRoute(contract.createTask, ({ database, principal, body }) =>
  createTask(database, { ...body, ownerId: body.ownerId ?? principal.name }, actorOf(principal)),
);

export const GET = withRoute(contract.listTasks, async ({ database, query }) => {
  const { tasks, nextCursor } = await listTasks(database, { stage: query.status, conversationId: query.conversationId, limit: query.limit, before: query.before });
  return { tasks: tasks.map(({ _count, ...t }) => ({ ...t, workItemCount: _count.workItems })), nextCursor };
});
