import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { getTaskDetail } from "@/lib/ledger/queries";

export const GET = withRoute(contract.getTask, ({ database, params }) => getTaskDetail(database, params.taskId));
