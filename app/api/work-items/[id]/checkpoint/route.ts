import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { checkpointWorkItem } from "@/lib/ledger/checkpoint-work-item";

export const POST = withRoute(contract.checkpoint, ({ database, principal, params, body }) =>
  checkpointWorkItem(database, { ...body, workItemId: params.id, actor: actorOf(principal) }),
);
