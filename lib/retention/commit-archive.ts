import type { Database } from "../db/client";
import type { ArchiveContent } from "./archive-file";
import { currentFingerprints } from "./export-tasks";
import { archivableWhere, keptHot, settlementOf } from "./find-archivable-tasks";

export interface CommitResult {
  /** Tasks that left the hot tables with this file (their ArchivedTask rows name it). */
  archived: string[];
  /** Tasks of the file that stay: they changed since the export, are no longer archivable, or were already archived. */
  stayed: string[];
}

/**
 * The one transaction after the file is durable: for each task of the archive that is still archivable and unchanged
 * since the export (same event count, last event and row version), record its ArchivedTask row naming `archivePath`
 * and delete its hot rows — review items, intents, effects, resources, work items, escalation deliveries, events (the
 * append-only trigger lets an event go only once its task's ArchivedTask row exists), the task. Everything or nothing.
 * On PostgreSQL the tasks are locked first (FOR UPDATE, in id order): inserting a child row (a review item, a work item)
 * takes a key-share lock on its task, so nothing can be added to a task between this check and its deletion.
 * Safe to repeat: a task already archived is no longer found, and stays out.
 */
export async function commitArchive(database: Database, archivePath: string, content: ArchiveContent): Promise<CommitResult> {
  const ids = content.header.taskIds;
  const cutoff = new Date(content.header.cutoff);
  return database.prisma.$transaction(
    async (tx) => {
      if (database.provider === "postgres" && ids.length) {
        await tx.$queryRawUnsafe(`SELECT 1 FROM "Task" WHERE "id" = ANY($1::text[]) ORDER BY "id" FOR UPDATE`, ids);
      }
      const still = await tx.task.findMany({
        where: { id: { in: ids }, ...archivableWhere(cutoff) },
        select: { id: true, title: true, ownerId: true, conversationId: true, stage: true, createdAt: true, settledAt: true, endedAt: true },
      });
      const kept = await keptHot(
        tx,
        still.map((t) => t.id),
      );
      const now = await currentFingerprints(
        tx,
        still.map((t) => t.id),
      );
      const exported = new Map(content.tasks.map((l) => [l.task.id, l.fingerprint]));
      const leaving = still.filter((t) => {
        const a = exported.get(t.id);
        const b = now.get(t.id);
        return !kept.has(t.id) && a && b && a.events === b.events && a.lastSeq === b.lastSeq && a.rowVersion === b.rowVersion;
      });
      const gone = leaving.map((t) => t.id);
      if (gone.length) {
        const ranges = await tx.ledgerEvent.groupBy({ by: ["taskId"], where: { taskId: { in: gone } }, _min: { seq: true }, _max: { seq: true } });
        const rangeOf = new Map(ranges.map((r) => [r.taskId, { firstEventSeq: r._min.seq, lastEventSeq: r._max.seq }]));
        await tx.archivedTask.createMany({
          data: leaving.map((t) => ({
            ...(rangeOf.get(t.id) ?? {}),
            taskId: t.id,
            title: t.title,
            ownerId: t.ownerId,
            conversationId: t.conversationId,
            stage: t.stage,
            createdAt: t.createdAt,
            settledAt: settlementOf(t),
            archivePath,
          })),
        });
        const where = { taskId: { in: gone } };
        await tx.reviewItem.deleteMany({ where });
        await tx.resourceIntent.deleteMany({ where });
        await tx.sideEffect.deleteMany({ where });
        await tx.resource.deleteMany({ where });
        await tx.workItem.deleteMany({ where });
        await tx.escalationDelivery.deleteMany({ where });
        await tx.ledgerEvent.deleteMany({ where });
        await tx.task.deleteMany({ where: { id: { in: gone } } });
      }
      const left = new Set(gone);
      return { archived: gone, stayed: ids.filter((id) => !left.has(id)) };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}
