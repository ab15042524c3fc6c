import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { recordSubmission } from "@/lib/ledger/record-submission";

export const POST = withRoute(contract.submitted, ({ database, principal, params, body }) =>
  recordSubmission(database, { ...body, workItemId: params.id, actor: actorOf(principal) }),
);
