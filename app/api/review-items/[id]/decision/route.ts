import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { decideReviewItem } from "@/lib/review/decide-review-item";
import { appRegistry } from "@/lib/runtime/app-registry";

export const POST = withRoute(contract.decideReviewItem, ({ database, principal, params, body }) =>
  decideReviewItem(database, appRegistry(), principal, { ...body, reviewItemId: params.id }),
);
