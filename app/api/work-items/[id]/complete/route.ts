import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { completeWorkItem } from "@/lib/ledger/complete-work-item";

export const POST = withRoute(contract.complete, ({ database, principal, params, body }) =>
  completeWorkItem(database, { ...body, workItemId: params.id, actor: actorOf(principal) }),
);
