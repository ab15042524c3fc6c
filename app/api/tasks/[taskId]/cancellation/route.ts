import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { getCancellationSummary } from "@/lib/cancellation/get-cancellation-summary";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.getCancellation, async ({ database, principal, params }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return getCancellationSummary(database, params.taskId);
});
