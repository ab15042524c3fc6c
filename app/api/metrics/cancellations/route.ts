import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { cancellationMetrics } from "@/lib/metrics/cancellation-metrics";

export const dynamic = "force-dynamic";
export const GET = withRoute(contract.metrics, ({ database, query }) =>
  cancellationMetrics(database, { since: query.since ? new Date(query.since) : undefined }),
);
