import type { Database } from "../../db/client";
import { AppError, ErrorCode } from "../../errors";
import type { HostedAnswer } from "./actions";

/** The host's answer to a question it claimed: recorded once (a repeat of the same answer is accepted, another refused). */
export async function answerToolRequest(database: Database, input: { id: string; hostId: string; answer: HostedAnswer }) {
  const { count } = await database.prisma.toolRequest.updateMany({
    where: { id: input.id, claimedBy: input.hostId, answeredAt: null },
    data: { answer: input.answer as never, answeredAt: new Date() },
  });
  if (count) return { id: input.id, accepted: true };
  const request = await database.prisma.toolRequest.findUnique({ where: { id: input.id } });
  if (!request) throw new AppError(ErrorCode.notFound, `no tool request ${input.id}`);
  if (request.claimedBy !== input.hostId)
    throw new AppError(ErrorCode.conflict, `tool request ${input.id} was not claimed by ${input.hostId}`, { claimedBy: request.claimedBy });
  return { id: input.id, accepted: false }; // answered already (a retried answer)
}
