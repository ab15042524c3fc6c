import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/tokens";
import { startWorkItem } from "@/lib/ledger/start-work-item";
import { handedToWorker } from "@/lib/observability/tool-call";

export const POST = withRoute(contract.startWorkItem, ({ database, principal, params, body }) =>
  startWorkItem(database, { ...body, taskId: params.taskId }, actorOf(principal)).then((item) => handedToWorker(item)),
);
