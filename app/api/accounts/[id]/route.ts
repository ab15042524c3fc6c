import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { changeAccountRole } from "@/lib/auth/change-account-role";

export const PATCH = withRoute(contract.changeAccountRole, ({ database, params, body, principal }) =>
  changeAccountRole(database, params.id, body.role, principal),
);
