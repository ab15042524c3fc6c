import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertWorkItemAccess } from "@/lib/auth/ownership";
import { getChildCancellationSummary } from "@/lib/cancellation/get-cancellation-summary";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.getWorkItemCancellation, async ({ database, principal, params }) => {
  await assertWorkItemAccess(database, principal, params.id);
  return getChildCancellationSummary(database, params.id);
});
