import type { Database } from "../db/client";
import { ACTIVE_ITEM_STATUSES, TokenRole } from "../ledger/states";

export interface IncidentTargets {
  /** Tools the ledger knows (each has had work items), with how many are alive now — the names a switch matches. */
  tools: { name: string; live: number }[];
  /** Tokens that may start work (agents) or claim it (workers), not revoked: a token's switch names its id. */
  tokens: { id: string; name: string; role: string; prefix: string }[];
}

/**
 * What a kill switch can name (issue 13): the switch matches the ledger's tool name exactly (an MCP gateway tool is
 * `mcp:<server>.<tool>`, not the name its clients see) and a token by its id, so the incident form offers these
 * instead of free text that could silently match nothing.
 */
export async function listIncidentTargets(database: Database): Promise<IncidentTargets> {
  const [all, live, tokens] = await Promise.all([
    database.prisma.workItem.groupBy({ by: ["toolName"], orderBy: { toolName: "asc" }, take: 500 }),
    database.prisma.workItem.groupBy({ by: ["toolName"], where: { status: { in: ACTIVE_ITEM_STATUSES } }, _count: { _all: true } }),
    database.prisma.apiToken.findMany({
      where: { revokedAt: null, role: { in: [TokenRole.agent, TokenRole.worker] } },
      orderBy: [{ name: "asc" }, { createdAt: "asc" }],
      select: { id: true, name: true, role: true, prefix: true },
      take: 500,
    }),
  ]);
  const liveOf = new Map(live.map((g) => [g.toolName, g._count._all]));
  return { tools: all.map((g) => ({ name: g.toolName, live: liveOf.get(g.toolName) ?? 0 })), tokens };
}
