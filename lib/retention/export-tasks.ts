import type { Database, Tx } from "../db/client";
import { auditOfTasks } from "../audit/query-audit";
import { ARCHIVE_VERSION, type ArchiveContent, type ArchivedTaskLine, type Fingerprint } from "./archive-file";

/**
 * Reads everything the ledger holds about `taskIds` — the task, its work items, resources, intents, effects, review
 * items, its events in order, its escalation deliveries — plus what support's audit showed for it, as the archive's
 * lines. Read-only. The fingerprint (event count, last event, the task's row version) is what the deleting transaction
 * compares: a task that changed after this read stays in the hot tables.
 */
export async function exportTasks(database: Database, taskIds: string[], meta: { now: Date; cutoff: Date; retentionDays: number }): Promise<ArchiveContent> {
  const prisma = database.prisma;
  const where = { taskId: { in: taskIds } };
  const [tasks, workItems, resources, resourceIntents, sideEffects, reviewItems, events, escalationDeliveries] = await Promise.all([
    prisma.task.findMany({ where: { id: { in: taskIds } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.workItem.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.resource.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.resourceIntent.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.sideEffect.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.reviewItem.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.ledgerEvent.findMany({ where, orderBy: { seq: "asc" } }),
    prisma.escalationDelivery.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
  ]);
  const audit = await auditOfTasks(database, { taskId: undefined }, tasks);
  const of = <T extends { taskId: string | null }>(rows: T[], id: string) => rows.filter((r) => r.taskId === id);
  const lines: ArchivedTaskLine[] = tasks.map((task) => {
    const own = of(events, task.id);
    const fingerprint: Fingerprint = { events: own.length, lastSeq: own.at(-1)?.seq ?? null, rowVersion: task.rowVersion };
    const line = {
      type: "task" as const,
      task,
      workItems: of(workItems, task.id),
      resources: of(resources, task.id),
      resourceIntents: of(resourceIntents, task.id),
      sideEffects: of(sideEffects, task.id),
      reviewItems: of(reviewItems, task.id),
      events: own,
      escalationDeliveries: of(escalationDeliveries, task.id),
      audit: {
        task: audit.tasks.find((t) => t.id === task.id) ?? null,
        effects: audit.effects.filter((e) => e.taskId === task.id),
        compensations: audit.compensations.filter((c) => c.taskId === task.id),
        uncertain: audit.uncertain.filter((u) => u.taskId === task.id),
      },
      fingerprint,
    };
    // Dates become ISO strings, as they will read back from the file.
    return JSON.parse(JSON.stringify(line)) as ArchivedTaskLine;
  });
  return {
    header: {
      type: "archive",
      version: ARCHIVE_VERSION,
      createdAt: meta.now.toISOString(),
      cutoff: meta.cutoff.toISOString(),
      retentionDays: meta.retentionDays,
      provider: database.provider,
      taskIds: lines.map((l) => l.task.id),
    },
    tasks: lines,
  };
}

/** The same fingerprint, read now (inside the deleting transaction). */
export async function currentFingerprints(tx: Pick<Tx, "ledgerEvent" | "task">, taskIds: string[]): Promise<Map<string, Fingerprint>> {
  const [counts, tasks] = await Promise.all([
    tx.ledgerEvent.groupBy({ by: ["taskId"], where: { taskId: { in: taskIds } }, _count: { _all: true }, _max: { seq: true } }),
    tx.task.findMany({ where: { id: { in: taskIds } }, select: { id: true, rowVersion: true } }),
  ]);
  const byTask = new Map(counts.map((c) => [c.taskId, c]));
  return new Map(
    tasks.map((t) => [t.id, { events: byTask.get(t.id)?._count._all ?? 0, lastSeq: byTask.get(t.id)?._max.seq ?? null, rowVersion: t.rowVersion }]),
  );
}
