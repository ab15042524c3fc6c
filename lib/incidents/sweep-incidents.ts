import type { Database } from "../db/client";
import { ACTIVE_ITEM_STATUSES, IncidentTarget, QUARANTINE_STATES, StopScope, TaskStage } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { recordChildStopIn } from "../cancellation/request-child-cancellation";
import { createdByToken, stopMany } from "../cancellation/stop-many";
import { tokenRef } from "../auth/tokens";

/**
 * The maintenance pass's sweep (engine.ts):
 * - TOOL: a work item of a quarantined tool that is alive and not yet stopped — one a schedule slipped in around the
 *   switch's commit on another engine, or one recovered from an expired lease — is stopped like the switch stops it.
 *   Nothing of it was claimed meanwhile: the claims check the switch themselves. Returns the items it stopped.
 * - TOKEN: a task of a quarantined token that is still active — one created by a request whose check passed just
 *   before the switch's commit, after the switch's own Stop had read the token's tasks — is stopped like the switch
 *   stops them (an ordinary boundary, scope incident; the engine takes it from there on its commit notification).
 *   Its work could not start meanwhile (the routes and the gateway refuse the token).
 */
export async function sweepIncidents(database: Database): Promise<string[]> {
  const incidents = await database.prisma.incident.findMany({ where: { state: { in: QUARANTINE_STATES } } });
  const stopped: string[] = [];
  for (const incident of incidents) {
    if (incident.targetKind === IncidentTarget.token) {
      const token = await database.prisma.apiToken.findUnique({ where: { id: incident.target }, select: { name: true } });
      if (!token) continue;
      const work = { ref: tokenRef(incident.target), name: token.name };
      const stray = await database.prisma.task.findFirst({
        where: { ...createdByToken(work), stage: TaskStage.active, cancelRequestedAt: null },
        select: { id: true },
      });
      if (stray) {
        await stopMany(database, {
          scope: StopScope.incident,
          ref: incident.id,
          where: { createdBy: work },
          reason: `incident: ${incident.reason}`,
          actor: incident.openedBy,
          actorId: incident.openedById,
        });
      }
      continue;
    }
    const strays = await database.prisma.workItem.findMany({
      where: { toolName: incident.target, status: { in: ACTIVE_ITEM_STATUSES }, stopRequestedAt: null },
      select: { id: true },
      take: 100,
    });
    for (const item of strays) {
      const answer = await writeLedger(database, (w) =>
        recordChildStopIn(w, {
          workItemId: item.id,
          reason: `incident: ${incident.reason}`,
          actor: incident.openedBy,
          actorId: incident.openedById,
          incidentId: incident.id,
        }),
      );
      if (answer.kind === "boundary" && !answer.boundary.alreadyRequested) stopped.push(item.id);
    }
  }
  return stopped;
}
