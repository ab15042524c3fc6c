/**
 * npm run retention -- --dry-run | --now
 *   --dry-run  lists the settled tasks that would leave the hot tables now under STOPLINE_RETENTION_DAYS (writes nothing)
 *   --now      runs one retention pass now (the same pass the app and `npm run worker` run every
 *              STOPLINE_RETENTION_INTERVAL_MS): finishes an archive a stopped pass left pending, then writes and fsyncs
 *              the audit export of each batch to STOPLINE_ARCHIVE_DIR before deleting its tasks' hot rows.
 *   --task <id>  (repeatable, with either) only these tasks — to try the policy on a few first; their age and every rule
 *                that keeps a task still apply
 * On the database named by DATABASE_URL. Exits 1 on a bad policy, 2 on bad arguments, 3 while another process runs a pass.
 */
import { openDatabase } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/config";
import { archiveSettledTasks } from "../lib/retention/archive-settled-tasks";
import { retentionPolicy, type RetentionPolicy } from "../lib/retention/policy";
import { withRetentionLease } from "../lib/retention/start-retention";

const dryRun = process.argv.includes("--dry-run");
const now = process.argv.includes("--now");
const only = process.argv.flatMap((arg, i, all) => (arg === "--task" ? [all[i + 1]] : []));
if (dryRun === now || only.some((id) => !id || id.startsWith("--"))) {
  console.error("usage: npm run retention -- --dry-run | --now [--task <id> …]");
  process.exit(2);
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
