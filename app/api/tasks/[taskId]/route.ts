import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { getTaskDetail } from "@/lib/ledger/queries";

export const GET = withRoute(contract.getTask, async ({ database, principal, params }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return getTaskDetail(database, params.taskId);
});
