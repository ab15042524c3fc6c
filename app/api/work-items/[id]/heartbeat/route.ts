import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { heartbeatWorkItem } from "@/lib/ledger/heartbeat-work-item";

export const POST = withRoute(contract.heartbeat, ({ database, principal, params, body }) =>
  heartbeatWorkItem(database, { ...body, workItemId: params.id, actor: actorOf(principal) }),
);
