import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { reportProgress } from "@/lib/ledger/report-progress";

export const POST = withRoute(contract.reportProgress, ({ database, principal, params, body: { leaseToken, ...progress } }) =>
  reportProgress(database, { workItemId: params.id, leaseToken, progress, actor: actorOf(principal) }),
);
