import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { reportPartial } from "@/lib/ledger/report-partial";

export const POST = withRoute(contract.reportPartial, async ({ database, principal, params, body }) => {
  await reportPartial(database, {
    workItemId: params.id,
    leaseToken: body.leaseToken,
    result: body.result,
    complete: body.complete,
    actor: actorOf(principal),
  });
  return { ok: true as const };
});
