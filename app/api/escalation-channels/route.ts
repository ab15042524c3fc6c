import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { createChannel } from "@/lib/escalation/create-channel";
import { listChannels } from "@/lib/escalation/list-channels";

export const GET = withRoute(contract.listEscalationChannels, async ({ database }) => ({ channels: await listChannels(database) }));
export const POST = withRoute(contract.createEscalationChannel, ({ database, body, principal }) => createChannel(database, body, principal));
