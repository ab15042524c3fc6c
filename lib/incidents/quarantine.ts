import { AppError, ErrorCode } from "../errors";
import { IncidentTarget, QUARANTINE_STATES } from "../ledger/states";
import type { Writer } from "../ledger/write";
import { onEngine, type Database } from "../db/client";

type IncidentReader = {
  incident: { findFirst(args: unknown): Promise<{ id: string; reason: string; targetKind: string; target: string; createdAt: Date } | null> };
};

/** The kill switch on for this target, if any (the oldest). */
export async function activeIncident(db: IncidentReader, targetKind: IncidentTarget, target: string) {
  return db.incident.findFirst({ where: { targetKind, target, state: { in: QUARANTINE_STATES } }, orderBy: { createdAt: "asc" } });
}

/** 409 `quarantined`, with the incident's reason, when a kill switch is on for this target. */
export function quarantinedError(incident: { id: string; reason: string; targetKind: string; target: string }): AppError {
  return new AppError(
    ErrorCode.quarantined,
    `${incident.targetKind === IncidentTarget.tool ? "tool" : "token"} ${incident.target} is quarantined by an incident: ${incident.reason}`,
    {
      incidentId: incident.id,
      targetKind: incident.targetKind,
      target: incident.target,
      reason: incident.reason,
    },
  );
}

/**
 * Refuses new work of a quarantined tool inside a scheduling transaction (schedule-work-item.ts, start-work-item.ts).
 * A schedule that raced the switch's commit and slipped through is never claimed (the claim statements check the
 * switch themselves) and is stopped by the maintenance sweep (sweep-incidents.ts).
 */
export async function assertToolNotQuarantined(w: Writer, toolName: string): Promise<void> {
  // PostgreSQL: shares the switch's lock on this tool (open-incident.ts takes it exclusively), so this check and the
  // insert that follows commit either before the switch (which then stops what they made) or see it.
  if (w.provider === "postgres")
    await w.tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock_shared(hashtext($1))::text AS locked`, quarantineLockKey(IncidentTarget.tool, toolName));
  const incident = await activeIncident(w.tx as unknown as IncidentReader, IncidentTarget.tool, toolName);
  if (incident) throw quarantinedError(incident);
}

/**
 * Refuses new work of a quarantined TOKEN inside a start's transaction (start-work-item.ts, `tokenId`: the MCP gateway
 * passes its client's token). PostgreSQL: shares the switch's lock on this token (open-incident.ts takes it
 * exclusively), so a start either commits before the switch — its task then exists and the switch's Stop of the
 * token's tasks covers it — or sees the switch. SQLite: one writer, the same order.
 */
export async function assertTokenNotQuarantinedIn(w: Writer, tokenId: string): Promise<void> {
  if (w.provider === "postgres")
    await w.tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock_shared(hashtext($1))::text AS locked`, quarantineLockKey(IncidentTarget.token, tokenId));
  const incident = await activeIncident(w.tx as unknown as IncidentReader, IncidentTarget.token, tokenId);
  if (incident) throw quarantinedError(incident);
}

/** The advisory lock key of a kill switch's target (PostgreSQL). */
export const quarantineLockKey = (kind: IncidentTarget, target: string) => `stopline:quarantine:${kind}:${target}`;

/** A kill switch as the checks read it. */
export type ActiveIncident = { id: string; reason: string; targetKind: string; target: string; createdAt: Date };

/**
 * PostgreSQL: the kill switch on for the token whose id is `tokenId` (a column or a parameter), as a subquery of one
 * row or none — the oldest, as activeIncident reads it. lib/auth/tokens.ts joins it to the token's own lookup, so a
 * request that starts work reads both in one statement.
 */
export const tokenIncidentOnPg = (tokenId: string) =>
  `SELECT "id", "reason", "targetKind", "target", "createdAt" FROM "Incident" WHERE "targetKind" = '${IncidentTarget.token}' AND "target" = ${tokenId}
     AND "state" IN (${QUARANTINE_STATES.map((s) => `'${s}'`).join(", ")}) ORDER BY "createdAt" LIMIT 1`;

/** The kill switch on for this token, if any. */
export function tokenIncident(database: Pick<Database, "prisma" | "pg" | "sqlite">, tokenId: string): Promise<ActiveIncident | null> {
  return onEngine(database, {
    postgres: async (pg) => (await pg.query<ActiveIncident>(tokenIncidentOnPg("$1"), [tokenId], "stopline_token_quarantine"))[0] ?? null,
    sqlite: () => activeIncident(database.prisma as unknown as IncidentReader, IncidentTarget.token, tokenId),
  });
}

/** 409 `quarantined` when a kill switch is on for this token (lib/api/route.ts: routes that start work). */
export async function assertTokenNotQuarantined(database: Pick<Database, "prisma" | "pg" | "sqlite">, tokenId: string): Promise<void> {
  const incident = await tokenIncident(database, tokenId);
  if (incident) throw quarantinedError(incident);
}
