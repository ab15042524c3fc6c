import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { getCancellationSummary } from "@/lib/cancellation/get-cancellation-summary";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.getCancellation, ({ database, params }) => getCancellationSummary(database, params.taskId));
