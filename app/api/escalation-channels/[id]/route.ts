import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { deactivateChannel } from "@/lib/escalation/deactivate-channel";

export const DELETE = withRoute(contract.deactivateEscalationChannel, ({ database, params, principal }) => deactivateChannel(database, params.id, principal));
