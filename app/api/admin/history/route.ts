import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { listAdminHistory } from "@/lib/auth/list-admin-history";

export const GET = withRoute(contract.adminHistory, ({ database, query }) => listAdminHistory(database, query));
