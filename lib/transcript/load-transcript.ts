import type { Database } from "../db/client";
import { utcFormat, type WordsFormat } from "../outcomes/words";
import { transcriptTurn, type TranscriptTurn } from "./transcript";

/**
 * The conversation's turns as the ledger records them now, oldest first (the agent's history; see transcript.ts).
 * `before`: only the turns created before this task (the turn being answered is not its own history).
 */
export async function loadTranscript(
  database: Database,
  input: { conversationId: string; ownerId: string; before?: string; now?: number; format?: WordsFormat },
): Promise<TranscriptTurn[]> {
  const self = input.before ? await database.prisma.task.findUnique({ where: { id: input.before }, select: { createdAt: true } }) : null;
  const tasks = await database.prisma.task.findMany({
    where: {
      conversationId: input.conversationId,
      ownerId: input.ownerId,
      turnId: { not: null },
      ...(input.before ? { id: { not: input.before } } : {}),
      ...(self ? { createdAt: { lte: self.createdAt } } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }], // the latest 50 turns
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      sideEffects: { orderBy: { createdAt: "asc" } },
      reviewItems: { orderBy: { createdAt: "asc" } },
      resources: true, // a "discarded" is only said once the draft is released (issue 20 item 1)
    },
    take: 50,
  });
  const now = input.now ?? Date.now();
  return tasks.reverse().map((t) => transcriptTurn(t, now, input.format ?? utcFormat));
}
