/**
 * `npm run bench:pg -- --history N` (part H): the cost of a long history. Loads N finished work items over N/10
 * settled tasks and 5·N ledger events into a Stopline database through the real tables with one
 * INSERT … SELECT generate_series each (shapes as the ledger writes them: a task's items, each item's
 * scheduled / claimed / started / finished / settled events, timestamps spread over the past year), then
 * the caller measures the same operations on it and on an empty database.
 */
import type { Database } from "../lib/db/client";

export async function loadHistory(database: Database, items: number): Promise<void> {
  const pgdb = database.pg!;
  const tasks = Math.max(1, Math.floor(items / 10));
  // Tasks settled over the past year, by 100 owners; one in ten stopped (its boundary 30 s in, as a Stop records it).
  await pgdb.query(
    `INSERT INTO "Task" ("id","ownerId","title","stage","cancelRequestedAt","cancelRequestedBy","cancelIntentVersion","intentVersion","settledAt","createdAt","updatedAt")
    SELECT 'hist-t-' || g, 'owner-' || (g % 100), 'history task ' || g, CASE WHEN g % 10 = 0 THEN 'cancelled' ELSE 'completed' END,
           CASE WHEN g % 10 = 0 THEN ts + interval '30 seconds' END, CASE WHEN g % 10 = 0 THEN 'user:owner-' || (g % 100) END,
           CASE WHEN g % 10 = 0 THEN 2 END, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END,
           ts + interval '1 minute', ts, ts + interval '1 minute'
    FROM generate_series(1, $1::int) g, LATERAL (SELECT timezone('UTC', now()) - interval '365 days' + (g::float8 / $1::int) * interval '364 days' AS ts) t`,
    [tasks],
  );
  await pgdb.query(
    `INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey","attempt","result","leaseOwner","startedAt","finishedAt","createdAt","updatedAt")
    SELECT 'hist-w-' || g, 'hist-t-' || (1 + g % $2::int), 'local_worker', CASE WHEN g % 3 = 0 THEN 'shop.check_stock' ELSE 'inference.generate' END, 'hist-w-' || g,
           CASE WHEN g % 20 = 0 THEN 'cancelled' ELSE 'completed' END, 1, 'abort_signal', 'hist-w-' || g || ':key', 1, '{"ok":true}'::jsonb, 'pool-history',
           ts, ts + interval '2 seconds', ts, ts + interval '2 seconds'
    FROM generate_series(1, $1::int) g, LATERAL (SELECT timezone('UTC', now()) - interval '365 days' + (g::float8 / $1::int) * interval '364 days' AS ts) t`,
    [items, tasks],
  );
  await pgdb.query(
    `INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","fromState","toState","createdAt")
    SELECT 'hist-t-' || (1 + g % $2::int), 'hist-w-' || g, 'workItem', 'hist-w-' || g, 'worker:pool-history',
           (ARRAY['work_item.scheduled','work_item.claimed','work_item.started','work_item.finished','work_item.settled'])[k],
           (ARRAY[NULL,'queued','claimed','running','completed'])[k], (ARRAY['queued','claimed','running','completed','completed'])[k],
           timezone('UTC', now()) - interval '365 days' + (g::float8 / $1::int) * interval '364 days' + k * interval '400 milliseconds'
    FROM generate_series(1, $1::int) g, generate_series(1, 5) k`,
    [items, tasks],
  );
  await pgdb.query(`VACUUM ANALYZE "Task", "WorkItem", "LedgerEvent"`);
}
