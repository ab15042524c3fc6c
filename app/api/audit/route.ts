import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { auditDownload, queryAudit } from "@/lib/audit";

export const dynamic = "force-dynamic";

export const GET = withRoute(contract.audit, async ({ database, query }) => {
  const { format, ...filter } = query;
  const report = await queryAudit(database, filter);
  return format ? auditDownload(report, format) : report;
});
