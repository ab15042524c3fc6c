import type { Database } from "../db/client";
import type { Incident } from "../db/generated/sqlite/client.ts";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { ACTIVE_ITEM_STATUSES, IncidentState, IncidentTarget, StopScope } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { recordChildStopIn } from "../cancellation/request-child-cancellation";
import { stopMany } from "../cancellation/stop-many";
import { tokenRef } from "../auth/tokens";
import { activeIncident, quarantineLockKey } from "./quarantine";

export interface OpenIncidentResult {
  incident: Incident;
  /** True when a switch was already on for this target: nothing new was written. */
  alreadyOpen: boolean;
  /** Work items of the tool stopped with the switch (their boundaries are in the switch's transaction). */
  stoppedWorkItems: string[];
  /** Tasks stopped for a quarantined token (each an ordinary boundary, scope incident). */
  stoppedTasks: string[];
}

/**
 * Turns an incident's kill switch on (issue 13). For a TOOL, one transaction: the incident, its event, and a Stop
 * of every work item of the tool still alive (queued ones leave dispatch in it; request-child-cancellation.ts), so
 * that from its commit nothing of the tool starts anywhere — the claim statements check the switch themselves
 * (guards.ts NOT_QUARANTINED_SQL), schedules and inline starts too (quarantine.ts) — and every one in flight is
 * stopped through its mechanism by the engine, with the same reconciliation, verification and review as any Stop.
 * For a TOKEN: the incident commits, from then on the token may not start work (lib/api/route.ts, 409), and every
 * task it created that is still active — for whichever person it acts for (`Task.createdById`) — is stopped like a
 * Stop (scope incident).
 *
 * What it does NOT do: undo what already took effect (that goes to review, as after a Stop), or stop work of the
 * tool that a process runs without the ledger knowing.
 */
export async function openIncident(
  database: Database,
  input: { targetKind: IncidentTarget; target: string; reason: string; actor: string; actorId?: string | null },
): Promise<OpenIncidentResult> {
  const token =
    input.targetKind === IncidentTarget.token ? await database.prisma.apiToken.findUnique({ where: { id: input.target }, select: { name: true } }) : null;
  if (input.targetKind === IncidentTarget.token && !token) throw new AppError(ErrorCode.notFound, `token ${input.target} not found`, { field: "target" });
  const opened = await writeLedger(database, async (w) => {
    // PostgreSQL: every schedule or inline start of this target waits for this transaction (quarantine.ts).
    if (w.provider === "postgres")
      await w.tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))::text AS locked`, quarantineLockKey(input.targetKind, input.target));
    const existing = await activeIncident(w.tx as never, input.targetKind, input.target);
    if (existing)
      return {
        incident: (await w.tx.incident.findUniqueOrThrow({ where: { id: existing.id } })) as Incident,
        alreadyOpen: true,
        stoppedWorkItems: [] as string[],
      };
    const incident = (await w.tx.incident.create({
      data: {
        targetKind: input.targetKind,
        target: input.target,
        reason: input.reason,
        state: IncidentState.active,
        openedBy: input.actor,
        openedById: input.actorId ?? null,
      },
    })) as Incident;
    const stoppedWorkItems: string[] = [];
    if (input.targetKind === IncidentTarget.tool) {
      const alive = await w.tx.workItem.findMany({
        where: { toolName: input.target, status: { in: ACTIVE_ITEM_STATUSES }, stopRequestedAt: null },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      for (const item of alive) {
        const answer = await recordChildStopIn(w, {
          workItemId: item.id,
          reason: `incident: ${input.reason}`,
          actor: input.actor,
          actorId: input.actorId,
          incidentId: incident.id,
        });
        if (answer.kind === "boundary" && !answer.boundary.alreadyRequested) stoppedWorkItems.push(item.id);
      }
    }
    await w.event({
      taskId: null,
      workItemId: null,
      entityType: "incident",
      entityId: incident.id,
      actor: input.actor,
      type: LedgerEvent.incidentOpened,
      toState: IncidentState.active,
      reason: input.reason,
      data: { targetKind: input.targetKind, target: input.target, inFlight: stoppedWorkItems.length },
    });
    return { incident, alreadyOpen: false, stoppedWorkItems };
  });
  let stoppedTasks: string[] = [];
  if (token && !opened.alreadyOpen) {
    const stopped = await stopMany(database, {
      scope: StopScope.incident,
      ref: opened.incident.id,
      where: { createdBy: { ref: tokenRef(input.target), name: token.name } },
      reason: `incident: ${input.reason}`,
      actor: input.actor,
      actorId: input.actorId,
    });
    stoppedTasks = stopped.boundaries.map((b) => b.taskId);
  }
  return { ...opened, stoppedTasks };
}
