/**
 * The one sentence support reads when older history left the hot tables (lib/retention). Pure: the audit page, the
 * audit's JSON and CSV, and a GET of an archived task all use these words. Dates are UTC calendar dates (YYYY-MM-DD),
 * the same for every reader.
 */
export interface ArchivedFacts {
  /** How many of the searched tasks this archive file holds. */
  taskCount: number;
  /** The latest settlement among them. */
  lastSettledAt: Date | string;
  /** When they left the hot tables. */
  archivedAt: Date | string;
  /** The archive file (a gzip JSONL audit export on the server that wrote it). */
  archivePath: string;
}

const DAY = 86_400_000;
const utcDate = (d: Date | string) => new Date(d).toISOString().slice(0, 10);

/** The first UTC day on which none of the archived tasks was still unsettled: "settled before <this day>". */
export function settledBeforeDay(lastSettledAt: Date | string): string {
  const t = new Date(lastSettledAt).getTime();
  return utcDate(new Date(Math.floor(t / DAY) * DAY + DAY));
}

/** "Older history (3 tasks settled before 2026-09-06) was archived on 2026-12-05 to /srv/stopline/data/archive/….jsonl.gz." */
export function archivedHistoryLine(f: ArchivedFacts): string {
  const n = `${f.taskCount} ${f.taskCount === 1 ? "task" : "tasks"}`;
  return `Older history (${n} settled before ${settledBeforeDay(f.lastSettledAt)}) was archived on ${utcDate(f.archivedAt)} to ${f.archivePath}.`;
}

/** What a read of one archived task answers (GET /api/tasks/{id}, the audit for that task id). */
export function archivedTaskMessage(f: { taskId: string; settledAt: Date | string; archivedAt: Date | string; archivePath: string | null }): string {
  const where = f.archivePath ? ` to ${f.archivePath}` : "; ask support for its audit export";
  return `task ${f.taskId} is no longer in the ledger: it settled on ${utcDate(f.settledAt)} and, under the retention policy, was archived on ${utcDate(f.archivedAt)}${where}.`;
}
