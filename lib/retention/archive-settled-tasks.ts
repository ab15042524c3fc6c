import { unlink } from "node:fs/promises";
import type { Database } from "../db/client";
import { databaseNow } from "../ledger/write";
import { finishArchive, newArchivePath, pendingArchives, readArchive, writePendingArchive } from "./archive-file";
import { commitArchive } from "./commit-archive";
import { exportTasks } from "./export-tasks";
import { findArchivableTasks } from "./find-archivable-tasks";
import { retentionCutoff, type RetentionPolicy } from "./policy";

export interface RetentionRun {
  /** "forever": STOPLINE_RETENTION_DAYS is unset, nothing was looked at. */
  policy: "forever" | "days";
  cutoff: string | null;
  /** Archive files this run finished: final path, tasks that left with it. */
  files: { path: string; archived: number; stayed: number }[];
  archived: number;
  /** Files a previous run left pending, finished (or dropped when none of their tasks could leave) by this one. */
  recovered: number;
  /** --dry-run: the tasks that would leave now (nothing written). */
  wouldArchive?: { id: string; settledAt: string }[];
}

/**
 * The retention pass. With STOPLINE_RETENTION_DAYS unset it does nothing. Otherwise:
 *  1. finishes any archive a previous pass left pending (written, then the process stopped before or after its
 *     transaction): the transaction runs again over it — tasks already gone are skipped — and the file gets its name;
 *  2. in batches, takes settled tasks older than the policy with nothing left to decide (find-archivable-tasks.ts),
 *     writes their audit export and fsyncs it (archive-file.ts), and only then, in one transaction, records each
 *     task's ArchivedTask row and deletes its hot rows (commit-archive.ts).
 * The order is what makes a crash harmless: before the file is durable nothing is deleted; after, the file holds
 * everything and a later pass completes the transaction. Run by one process at a time (start-retention.ts holds the
 * "retention" process lease; the CLI takes it too).
 */
export async function archiveSettledTasks(
  database: Database,
  policy: RetentionPolicy,
  /** `only`: these tasks at most (an operator trying the policy on a few first: `npm run retention -- --now --task <id>`); the age and every rule still apply. */
  options: { dryRun?: boolean; now?: Date; only?: string[] } = {},
): Promise<RetentionRun> {
  const now = options.now ?? (await databaseNow(database.prisma, database.provider));
  const cutoff = retentionCutoff(policy, now);
  const run: RetentionRun = { policy: cutoff ? "days" : "forever", cutoff: cutoff?.toISOString() ?? null, files: [], archived: 0, recovered: 0 };
  if (!cutoff || policy.days === null) return run;
  if (options.dryRun) {
    const found = await findArchivableTasks(database, cutoff, policy.batchSize * policy.maxBatchesPerPass, options.only);
    return { ...run, wouldArchive: found.map((t) => ({ id: t.id, settledAt: t.settledAt.toISOString() })) };
  }

  for (const finalPath of await pendingArchives(policy.archiveDir)) {
    const content = await readArchive(`${finalPath}.pending`).catch(() => null);
    if (!content) {
      // Cut short: the process stopped while writing it, before any transaction could name it — its tasks are still
      // hot. (A file that a transaction names is complete and fsynced; unreadable, it needs a person, not a delete.)
      if ((await tasksNamingFile(database, finalPath)).size)
        throw new Error(`retention: ${finalPath}.pending is named by archived tasks but cannot be read; restore it from a backup`);
      await unlink(`${finalPath}.pending`);
      continue;
    }
    const result = await commitArchive(database, finalPath, content);
    const leftWith = await tasksNamingFile(database, finalPath);
    // A file no ArchivedTask row names holds nothing that is not still in the hot tables: drop it rather than keep a copy.
    if (leftWith.size) await finishArchive(finalPath, content, leftWith);
    else await unlink(`${finalPath}.pending`);
    run.recovered += 1;
    run.archived += result.archived.length;
    if (leftWith.size) run.files.push({ path: finalPath, archived: leftWith.size, stayed: content.tasks.length - leftWith.size });
  }

  for (let batch = 0; batch < policy.maxBatchesPerPass; batch++) {
    const found = await findArchivableTasks(database, cutoff, policy.batchSize, options.only);
    if (!found.length) break;
    const content = await exportTasks(
      database,
      found.map((t) => t.id),
      { now, cutoff, retentionDays: policy.days },
    );
    const finalPath = newArchivePath(policy.archiveDir, new Date());
    await writePendingArchive(finalPath, content);
    const result = await commitArchive(database, finalPath, content);
    if (result.archived.length) await finishArchive(finalPath, content, new Set(result.archived));
    else await unlink(`${finalPath}.pending`);
    run.archived += result.archived.length;
    if (result.archived.length) run.files.push({ path: finalPath, archived: result.archived.length, stayed: result.stayed.length });
    // Every task found changed under us: stop here rather than loop on them; the next pass looks again.
    if (!result.archived.length || found.length < policy.batchSize) break;
  }
  return run;
}

/** The tasks whose ArchivedTask row names this file: what it must hold. */
async function tasksNamingFile(database: Database, archivePath: string): Promise<Set<string>> {
  const rows = await database.prisma.archivedTask.findMany({ where: { archivePath }, select: { taskId: true } });
  return new Set(rows.map((r) => r.taskId));
}
