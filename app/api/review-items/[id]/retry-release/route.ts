import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { retryRelease } from "@/lib/review/retry-release";
import { appRegistry } from "@/lib/runtime/app-registry";

export const POST = withRoute(contract.retryRelease, ({ database, principal, params }) => retryRelease(database, appRegistry(), principal, params.id));
