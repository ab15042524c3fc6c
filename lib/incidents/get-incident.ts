import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { isOpenReview, OPEN_REVIEW_STATUSES, QUARANTINE_STATES, StopScope } from "../ledger/states";
import { childFacts, childOutcome, describeOutcome, isMoving, outcomeBadgeWords, stopFacts, utcFormat, type OutcomeKind } from "../outcomes";

export interface IncidentTaskView {
  taskId: string;
  title: string;
  stage: string;
  ownerId: string;
  /** The children the switch stopped (and their descendants), or every child of a task it stopped whole. */
  steps: { workItemId: string; toolName: string; status: string; outcome: { kind: OutcomeKind; short: string; label: string; moving: boolean } }[];
  /** What a person must decide about this task (open or escalated review items). */
  needsPerson: { id: string; kind: string; subject: string; deadline: string; status: string }[];
}

/**
 * One incident as its page shows it (issue 13): the switch, and every task it touched — each step it stopped with
 * its outcome in the one vocabulary (lib/outcomes), and what needs a person. Read from the ledger only; the page
 * refetches on the ledger's live events.
 */
export async function getIncident(database: Database, incidentId: string) {
  const incident = await database.prisma.incident.findUnique({ where: { id: incidentId } });
  if (!incident) throw new AppError(ErrorCode.notFound, `incident ${incidentId} not found`, { incidentId });
  const roots = await database.prisma.workItem.findMany({ where: { stopIncidentId: incident.id }, select: { id: true, taskId: true } });
  const wholeTasks = await database.prisma.task.findMany({ where: { cancelScope: StopScope.incident, cancelScopeRef: incident.id }, select: { id: true } });
  const taskIds = [...new Set([...roots.map((r) => r.taskId), ...wholeTasks.map((t) => t.id)])];
  const whole = new Set(wholeTasks.map((t) => t.id));
  const rootIds = new Set(roots.map((r) => r.id));
  const tasks = await database.prisma.task.findMany({
    where: { id: { in: taskIds } },
    include: {
      workItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      sideEffects: true,
      reviewItems: { orderBy: { createdAt: "asc" } },
      resources: { select: { workItemId: true, state: true } },
    },
    orderBy: { createdAt: "asc" },
  });
  const now = Date.now();
  const views: IncidentTaskView[] = tasks.map((task) => {
    const stop = stopFacts(task);
    const related = { sideEffects: task.sideEffects, reviewItems: task.reviewItems, resources: task.resources };
    const touched = task.workItems.filter((w) => whole.has(task.id) || (w.stopRootId !== null && rootIds.has(w.stopRootId)));
    const touchedIds = new Set(touched.map((w) => w.id));
    const effectIds = new Set(task.sideEffects.filter((e) => touchedIds.has(e.workItemId)).map((e) => e.id));
    return {
      taskId: task.id,
      title: task.title,
      stage: task.stage,
      ownerId: task.ownerId,
      steps: touched.map((w) => {
        const o = childOutcome(childFacts(w, related, now), stop);
        return {
          workItemId: w.id,
          toolName: w.toolName,
          status: w.status,
          outcome: { kind: o.kind, short: outcomeBadgeWords(o).short, label: describeOutcome(o, utcFormat), moving: isMoving(o) },
        };
      }),
      needsPerson: task.reviewItems
        .filter(
          (r) =>
            isOpenReview(r.status) &&
            (whole.has(task.id) || (r.workItemId !== null && touchedIds.has(r.workItemId)) || (r.sideEffectId !== null && effectIds.has(r.sideEffectId))),
        )
        .map((r) => ({ id: r.id, kind: r.kind, subject: r.subject, deadline: r.deadline.toISOString(), status: r.status })),
    };
  });
  const steps = views.flatMap((v) => v.steps);
  return {
    incident,
    on: QUARANTINE_STATES.includes(incident.state as never),
    tasks: views,
    counts: {
      tasks: views.length,
      steps: steps.length,
      stillStopping: steps.filter((s) => s.outcome.moving || s.outcome.kind === "could_not_stop_running").length,
      needsPerson: views.reduce((n, v) => n + v.needsPerson.length, 0),
    },
  };
}

/** Every incident, newest first, with how many tasks each touched and how many open review items they have. */
export async function listIncidents(database: Database) {
  const incidents = await database.prisma.incident.findMany({ orderBy: { createdAt: "desc" }, take: 100 });
  return Promise.all(
    incidents.map(async (incident) => {
      const touched = await database.prisma.workItem.findMany({ where: { stopIncidentId: incident.id }, select: { taskId: true }, distinct: ["taskId"] });
      const whole = await database.prisma.task.findMany({ where: { cancelScope: StopScope.incident, cancelScopeRef: incident.id }, select: { id: true } });
      const taskIds = [...new Set([...touched.map((t) => t.taskId), ...whole.map((t) => t.id)])];
      const open = taskIds.length ? await database.prisma.reviewItem.count({ where: { taskId: { in: taskIds }, status: { in: OPEN_REVIEW_STATUSES } } }) : 0;
      return { incident, on: QUARANTINE_STATES.includes(incident.state as never), tasks: taskIds.length, openReviewItems: open };
    }),
  );
}
