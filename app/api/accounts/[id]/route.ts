import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { changeAccountRole } from "@/lib/auth/change-account-role";

export const PATCH = withRoute(contract.changeAccountRole, ({ database, params, body }) => changeAccountRole(database, params.id, body.role));
