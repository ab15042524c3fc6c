import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";
import { handedToWorker } from "@/lib/observability/tool-call";

export const POST = withRoute(contract.claim, async ({ database, body }) => ({ workItem: handedToWorker(await claimWorkItem(database, body)) }));
