import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { listReviewItems } from "@/lib/review/list-review-items";

export const GET = withRoute(contract.listReviewItems, async ({ database, query }) => ({ reviewItems: await listReviewItems(database, query) }));
