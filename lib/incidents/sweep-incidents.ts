import type { Database } from "../db/client";
import { ACTIVE_ITEM_STATUSES, IncidentTarget, QUARANTINE_STATES } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { recordChildStopIn } from "../cancellation/request-child-cancellation";

/**
 * The maintenance pass's sweep (engine.ts): a work item of a quarantined tool that is alive and not yet stopped —
 * one a schedule slipped in around the switch's commit on another engine, or one recovered from an expired lease —
 * is stopped like the switch stops it. Nothing of it was claimed meanwhile: the claims check the switch themselves.
 * Returns the items it stopped.
 */
export async function sweepIncidents(database: Database): Promise<string[]> {
  const incidents = await database.prisma.incident.findMany({ where: { targetKind: IncidentTarget.tool, state: { in: QUARANTINE_STATES } } });
  const stopped: string[] = [];
  for (const incident of incidents) {
    const strays = await database.prisma.workItem.findMany({ where: { toolName: incident.target, status: { in: ACTIVE_ITEM_STATUSES }, stopRequestedAt: null }, select: { id: true }, take: 100 });
    for (const item of strays) {
      const answer = await writeLedger(database, (w) => recordChildStopIn(w, { workItemId: item.id, reason: `incident: ${incident.reason}`, actor: incident.openedBy, actorId: incident.openedById, incidentId: incident.id }));
      if (answer.kind === "boundary" && !answer.boundary.alreadyRequested) stopped.push(item.id);
    }
  }
  return stopped;
}
