import type { Database } from "../../db/client";
import { HostedPayloadSchema, type HostedAction, type HostedPayload } from "./actions";

export interface ClaimedToolRequest {
  id: string;
  toolName: string;
  action: HostedAction;
  payload: HostedPayload;
  expiresAt: Date;
}

/**
 * A host takes the open questions about the tools it registered (and renews its registration): each request is
 * claimed by one host only (a guarded write on `claimedBy`). Waits up to `waitMs` for one to arrive (a long poll),
 * so a host learns of a question within a fraction of a second without polling the API in a tight loop.
 */
export async function claimToolRequests(
  database: Database,
  input: { hostId: string; principalId: string; waitMs: number; max: number; leaseMs: number; signal?: AbortSignal },
): Promise<ClaimedToolRequest[]> {
  const deadline = Date.now() + input.waitMs;
  for (;;) {
    // A host that hung up (or died) mid-poll takes nothing: a question it claimed would wait for an answer never coming.
    if (input.signal?.aborted) return [];
    const now = new Date();
    const hosted = await database.prisma.toolHost.findMany({ where: { hostId: input.hostId, principalId: input.principalId }, select: { toolName: true } });
    if (!hosted.length) return [];
    await database.prisma.toolHost.updateMany({
      where: { hostId: input.hostId, principalId: input.principalId },
      data: { expiresAt: new Date(now.getTime() + input.leaseMs) },
    });
    const open = await database.prisma.toolRequest.findMany({
      where: { toolName: { in: hosted.map((h) => h.toolName) }, claimedBy: null, expiresAt: { gt: now } },
      orderBy: { createdAt: "asc" },
      take: input.max,
    });
    const claimed: ClaimedToolRequest[] = [];
    for (const r of open) {
      if (input.signal?.aborted) break;
      const { count } = await database.prisma.toolRequest.updateMany({
        where: { id: r.id, claimedBy: null },
        data: { claimedBy: input.hostId, claimedAt: now },
      });
      if (count)
        claimed.push({
          id: r.id,
          toolName: r.toolName,
          action: r.action as HostedAction,
          payload: HostedPayloadSchema.parse(r.payload),
          expiresAt: r.expiresAt,
        });
    }
    if (claimed.length || Date.now() >= deadline) return claimed;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
