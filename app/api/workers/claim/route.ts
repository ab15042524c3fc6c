import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";

export const POST = withRoute(contract.claim, async ({ database, body }) => ({ workItem: await claimWorkItem(database, body) }));
