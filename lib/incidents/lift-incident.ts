import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { LedgerEvent } from "../ledger/events";
import { IncidentState } from "../ledger/states";
import { casUpdate, conflict, writeLedger } from "../ledger/write";

interface Who {
  actor: string;
  /** Stable id of who acts (principalRef): the maker-checker compares it, never a display name. */
  actorId: string;
}

/**
 * Lifting a kill switch takes two people (maker-checker): one asks (`requestLift`, active → lift_requested, with the
 * reason), another confirms (`confirmLift`, → lifted) — never the one who asked. Until the confirmation commits the
 * switch stays on (QUARANTINE_STATES). A request can be withdrawn (→ active). Each step is a compare-and-set with its
 * event; a step on an incident in another state is a 409 that names the state.
 */
export async function requestLift(database: Database, input: Who & { incidentId: string; reason: string }) {
  return move(database, input.incidentId, IncidentState.active, IncidentState.liftRequested, LedgerEvent.incidentLiftRequested, input.reason, input, {
    liftRequestedBy: input.actor,
    liftRequestedById: input.actorId,
    liftReason: input.reason,
  });
}

export async function confirmLift(database: Database, input: Who & { incidentId: string }) {
  const incident = await database.prisma.incident.findUnique({ where: { id: input.incidentId } });
  if (!incident) throw new AppError(ErrorCode.notFound, `incident ${input.incidentId} not found`, { incidentId: input.incidentId });
  if (incident.liftRequestedById === input.actorId) {
    throw new AppError(ErrorCode.forbidden, "you asked to lift this switch: another person must confirm it (maker-checker)", {
      liftRequestedBy: incident.liftRequestedBy,
    });
  }
  return move(
    database,
    input.incidentId,
    IncidentState.liftRequested,
    IncidentState.lifted,
    LedgerEvent.incidentLifted,
    incident.liftReason,
    input,
    {
      liftedBy: input.actor,
      liftedById: input.actorId,
    },
    { liftRequestedById: incident.liftRequestedById },
    { requestedBy: incident.liftRequestedBy },
  );
}

export async function withdrawLift(database: Database, input: Who & { incidentId: string }) {
  return move(database, input.incidentId, IncidentState.liftRequested, IncidentState.active, LedgerEvent.incidentLiftWithdrawn, null, input, {
    liftRequestedAt: null,
    liftRequestedBy: null,
    liftRequestedById: null,
    liftReason: null,
  });
}

async function move(
  database: Database,
  id: string,
  from: IncidentState,
  to: IncidentState,
  type: typeof LedgerEvent.incidentLiftRequested | typeof LedgerEvent.incidentLifted | typeof LedgerEvent.incidentLiftWithdrawn,
  reason: string | null,
  who: Who,
  data: Record<string, unknown>,
  guard: Record<string, unknown> = {},
  eventData?: { requestedBy: string | null },
) {
  return writeLedger(database, async (w) => {
    const now = await w.now();
    const at = to === IncidentState.liftRequested ? { liftRequestedAt: now } : to === IncidentState.lifted ? { liftedAt: now } : {};
    const event =
      type === LedgerEvent.incidentLifted
        ? { taskId: null, actor: who.actor, type, reason, data: eventData ?? { requestedBy: null } }
        : { taskId: null, actor: who.actor, type, reason };
    const moved = await casUpdate(w, { entity: "incident", id, from, to, guard, data: { ...data, ...at }, event: event as never });
    if (!moved) {
      const current = await w.tx.incident.findUnique({ where: { id }, select: { state: true } });
      throw conflict("incident", id, from, current?.state);
    }
    return moved;
  });
}
