import { contract } from "@/lib/api/contract";
import { withRoute } from "@/lib/api/route";
import { answerToolRequest } from "@/lib/tools/hosted/answer-tool-request";

export const POST = withRoute(contract.answerToolRequest, ({ database, params, body }) =>
  answerToolRequest(database, { id: params.id, hostId: body.hostId, answer: body.answer }),
);
