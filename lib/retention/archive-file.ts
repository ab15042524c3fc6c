import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";

/**
 * The archive file: gzip-compressed JSON Lines, one file per batch.
 *   line 1   {"type":"archive", version, createdAt, cutoff, retentionDays, provider, taskIds}
 *   line 2…  {"type":"task", task, workItems, resources, resourceIntents, sideEffects, reviewItems, events,
 *             escalationDeliveries, audit, fingerprint} — one per task, everything the audit showed and the rows behind it
 *   last     {"type":"end", tasks}  (a file without it is cut short and is never used)
 * It is written as `<name>.pending` (fsynced, and its directory), the deleting transaction names the final path, and
 * only then is it renamed. A `.pending` file found later is a pass that stopped in between: archive-settled-tasks.ts
 * finishes it (the transaction checks every task again) before it writes anything new.
 */
export const ARCHIVE_VERSION = 1;
export const PENDING = ".pending";
const NAME = /^stopline-archive-\d{8}T\d{6}Z-[0-9a-f]{8}\.jsonl\.gz$/;

/** What must not have changed since the export for a task to leave with it: its events and its row version. */
export interface Fingerprint {
  events: number;
  lastSeq: number | null;
  rowVersion: number;
}

export interface ArchiveHeader {
  type: "archive";
  version: number;
  createdAt: string;
  cutoff: string;
  retentionDays: number;
  provider: string;
  taskIds: string[];
}

/** One task's line. Rows are as the ledger stored them (dates as ISO strings after JSON). */
export interface ArchivedTaskLine {
  type: "task";
  task: Record<string, unknown> & {
    id: string;
    title: string;
    ownerId: string;
    conversationId: string | null;
    stage: string;
    createdAt: string;
    settledAt: string | null;
    endedAt: string | null;
  };
  workItems: Record<string, unknown>[];
  resources: Record<string, unknown>[];
  resourceIntents: Record<string, unknown>[];
  sideEffects: Record<string, unknown>[];
  reviewItems: Record<string, unknown>[];
  events: (Record<string, unknown> & { seq: number })[];
  escalationDeliveries: Record<string, unknown>[];
  /** What support's audit showed for this task when it left (lib/audit auditOfTasks): outcomes, effects, compensations. */
  audit: unknown;
  fingerprint: Fingerprint;
}

export interface ArchiveContent {
  header: ArchiveHeader;
  tasks: ArchivedTaskLine[];
}

/** A new file name in `dir`: stopline-archive-<UTC stamp>-<random>.jsonl.gz (the final name; the file starts pending). */
export function newArchivePath(dir: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
  return path.join(dir, `stopline-archive-${stamp}-${randomBytes(4).toString("hex")}.jsonl.gz`);
}

/**
 * Writes the archive durably as `<finalPath>.pending`: the compressed lines, fsync of the file, fsync of its directory
 * (so the name survives a power cut too). Readable by the server's user only (it holds personal data: SECURITY.md).
 */
export async function writePendingArchive(finalPath: string, content: ArchiveContent): Promise<string> {
  await mkdir(path.dirname(finalPath), { recursive: true, mode: 0o700 });
  const pending = finalPath + PENDING;
  await writeDurably(pending, content);
  await syncDirectory(path.dirname(finalPath));
  return pending;
}

async function writeDurably(file: string, content: ArchiveContent): Promise<void> {
  const lines = `${[content.header, ...content.tasks, { type: "end", tasks: content.tasks.length }].map((l) => JSON.stringify(l)).join("\n")}\n`;
  const body = await promisify(gzip)(Buffer.from(lines, "utf8"));
  const handle = await open(file, "wx", 0o600);
  try {
    await handle.writeFile(body);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The pending file becomes the final one, after the deleting transaction committed. When some of its tasks stayed in the
 * hot tables (they changed after the export), the final file is rewritten with only the tasks that left with it — so
 * that each archived task is in exactly one file, the one its ArchivedTask row names — through a temporary file
 * renamed over the final name; the pending file goes last (a crash in between leaves it, and the next pass repeats this).
 */
export async function finishArchive(finalPath: string, content: ArchiveContent, leftWith: Set<string>): Promise<void> {
  const pending = finalPath + PENDING;
  if (leftWith.size === content.tasks.length) {
    await rename(pending, finalPath);
  } else {
    const tasks = content.tasks.filter((t) => leftWith.has(t.task.id));
    const tmp = `${finalPath}.tmp`;
    await rm(tmp, { force: true });
    await writeDurably(tmp, { header: { ...content.header, taskIds: tasks.map((t) => t.task.id) }, tasks });
    await rename(tmp, finalPath);
    await rm(pending);
  }
  await syncDirectory(path.dirname(finalPath));
}

/** Reads an archive file back (final or pending); throws when it is cut short or not an archive. */
export async function readArchive(file: string): Promise<ArchiveContent> {
  const text = (await promisify(gunzip)(await readFile(file))).toString("utf8");
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string });
  const header = lines[0] as ArchiveHeader | undefined;
  const end = lines.at(-1) as { type: string; tasks?: number } | undefined;
  if (header?.type !== "archive" || header.version !== ARCHIVE_VERSION) throw new Error(`${file} is not a Stopline archive (version ${ARCHIVE_VERSION})`);
  const tasks = lines.slice(1, -1) as ArchivedTaskLine[];
  if (end?.type !== "end" || end.tasks !== tasks.length || tasks.some((t) => t.type !== "task")) throw new Error(`${file} is cut short`);
  return { header, tasks };
}

/** Archives a pass left pending in `dir` (final paths, oldest first). */
export async function pendingArchives(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : Promise.reject(error)));
  return names
    .filter((n) => n.endsWith(PENDING) && NAME.test(n.slice(0, -PENDING.length)))
    .sort()
    .map((n) => path.join(dir, n.slice(0, -PENDING.length)));
}

/** Archive files (final) in `dir`, oldest first. */
export async function archiveFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : Promise.reject(error)));
  return names
    .filter((n) => NAME.test(n))
    .sort()
    .map((n) => path.join(dir, n));
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
