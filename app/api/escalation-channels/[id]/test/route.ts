import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { sendTest } from "@/lib/escalation/send-test";

export const POST = withRoute(contract.sendEscalationTest, ({ database, principal, params }) => sendTest(database, params.id, principal));
