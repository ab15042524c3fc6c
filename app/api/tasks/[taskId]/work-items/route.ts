import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";

export const POST = withRoute(contract.scheduleWorkItem, ({ database, principal, params, body }) =>
  scheduleWorkItem(database, { ...body, taskId: params.taskId }, actorOf(principal)),
);
