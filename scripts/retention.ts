/**
 * npm run retention -- --dry-run | --now | --read <archive file>
 *   --dry-run  lists the settled tasks that would leave the hot tables now under STOPLINE_RETENTION_DAYS (writes nothing)
 *   --now      runs one retention pass now (the same pass the app and `npm run worker` run every
 *              STOPLINE_RETENTION_INTERVAL_MS): finishes an archive a stopped pass left pending, then writes and fsyncs
 *              the audit export of each batch to STOPLINE_ARCHIVE_DIR before deleting its tasks' hot rows.
 *   --task <id>  (repeatable, with either) only these tasks — to try the policy on a few first; their age and every rule
 *                that keeps a task still apply
 *   --read <file> [--task <id> …] [--format csv|json]  the archive reader: what support's audit showed for the tasks in
 *              an archive file (all, or these), as the audit's CSV (default) or JSON — from the file alone, no database
 * On the database named by DATABASE_URL. Exits 1 on a bad policy or an unreadable archive, 2 on bad arguments, 3 while
 * another process runs a pass.
 */
import { auditToCsv } from "../lib/audit/render";
import { openDatabase } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/config";
import { auditOfArchive } from "../lib/retention/archive-audit";
import { readArchive } from "../lib/retention/archive-file";
import { archiveSettledTasks } from "../lib/retention/archive-settled-tasks";
import { retentionPolicy, type RetentionPolicy } from "../lib/retention/policy";
import { withRetentionLease } from "../lib/retention/start-retention";

const USAGE = "usage: npm run retention -- --dry-run | --now [--task <id> …]   or   --read <archive file> [--task <id> …] [--format csv|json]";
const valuesOf = (flag: string) => process.argv.flatMap((arg, i, all) => (arg === flag ? [all[i + 1]] : []));
const dryRun = process.argv.includes("--dry-run");
const now = process.argv.includes("--now");
const reading = process.argv.includes("--read");
const [read] = valuesOf("--read");
const only = valuesOf("--task");
const [format = "csv"] = valuesOf("--format");
const missing = (value: string | undefined) => !value || value.startsWith("--");
if ([dryRun, now, reading].filter(Boolean).length !== 1 || only.some(missing) || (reading && missing(read))) {
  console.error(USAGE);
  process.exit(2);
}
if (reading) {
  if (format !== "csv" && format !== "json") {
    console.error(`--format is csv or json, not "${format}"\n${USAGE}`);
    process.exit(2);
  }
  try {
    const report = auditOfArchive(await readArchive(read), only);
    process.stdout.write(format === "csv" ? auditToCsv(report) : `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    console.error(`[stopline] cannot read ${read}: ${(error as Error).message}`);
    process.exit(1);
  }
  process.exit(0);
}
const scope = only.length ? { only } : {};
let policy: RetentionPolicy;
try {
  policy = retentionPolicy();
} catch (error) {
  console.error(`[stopline] ${(error as Error).message}`);
  process.exit(1);
}
if (policy.days === null) {
  console.log("[stopline] STOPLINE_RETENTION_DAYS is not set: every task is kept; nothing to do.");
  process.exit(0);
}
await migrate();
const database = openDatabase();
try {
  console.log(`[stopline] retention on ${resolveDatabase().provider}: settled tasks older than ${policy.days} day(s); archive directory ${policy.archiveDir}`);
  if (dryRun) {
    const run = await archiveSettledTasks(database, policy, { dryRun: true, ...scope });
    console.log(`[stopline] would archive ${run.wouldArchive!.length} task(s) settled before ${run.cutoff}${run.wouldArchive!.length ? ":" : "."}`);
    for (const t of run.wouldArchive!) console.log(`  ${t.id}  settled ${t.settledAt}`);
  } else {
    const run = await withRetentionLease(database, `retention-cli-${process.pid}`, () => archiveSettledTasks(database, policy, scope));
    if (!run) {
      const lease = await database.prisma.processLease.findUnique({ where: { name: "retention" } });
      console.error(
        `[stopline] another process (${lease?.owner ?? "unknown"}) is running a retention pass; try again when it ends (its lease expires ${lease?.expiresAt.toISOString() ?? "soon"}).`,
      );
      process.exitCode = 3;
    } else {
      console.log(
        `[stopline] archived ${run.archived} task(s)${run.recovered ? `, finishing ${run.recovered} archive(s) a stopped pass had left pending` : ""}.`,
      );
      for (const f of run.files)
        console.log(`  ${f.path}: ${f.archived} task(s)${f.stayed ? ` (${f.stayed} changed after the export and stay for a later pass)` : ""}`);
      console.log(JSON.stringify(run));
    }
  }
} finally {
  await database.close();
}
