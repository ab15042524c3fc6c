import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { assertTaskAccess } from "@/lib/auth/ownership";
import { modelFromEnvironment } from "@/lib/cancellation/model-planner";
import { previewStop } from "@/lib/cancellation/preview-stop";
import { appRegistry } from "@/lib/runtime/app-registry";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.stopPreview, async ({ database, principal, params }) => {
  await assertTaskAccess(database, principal, params.taskId);
  return previewStop(database, appRegistry(), params.taskId, { modelPlanner: !!modelFromEnvironment() });
});
