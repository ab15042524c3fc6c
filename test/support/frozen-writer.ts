/**
 * A worker PROCESS that freezes inside a ledger write transaction (test/lib/db/frozen-writer.int.test.ts):
 *
 *   node --import tsx test/support/frozen-writer.ts <databaseUrl> <taskId>
 *
 * It opens the ledger like any worker (openDatabase), starts a real ledger write (writeLedger: on SQLite
 * BEGIN IMMEDIATE — the database's one write lock; on PostgreSQL it locks the task's row, as the boundary and
 * claims do), appends an event for the task, says {"event":"in-transaction"} on stdout and then waits inside
 * the transaction forever. The test SIGSTOPs it there — a frozen process holding a lock — and later SIGKILLs it.
 */
import { openDatabase } from "../../lib/db/client";
import { writeLedger } from "../../lib/ledger/write";

const [databaseUrl, taskId] = process.argv.slice(2);
if (!databaseUrl || !taskId) {
  console.error("usage: frozen-writer.ts <databaseUrl> <taskId>");
  process.exit(2);
}
const database = openDatabase(databaseUrl);
await writeLedger(database, async (w) => {
  if (database.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT "id" FROM "Task" WHERE "id" = $1 FOR UPDATE`, taskId);
  await w.event({
    taskId,
    entityType: "task",
    entityId: taskId,
    actor: "worker:frozen",
    type: "ledger.probe",
    reason: "frozen: written inside the transaction that never commits",
  });
  console.log(JSON.stringify({ event: "in-transaction", pid: process.pid }));
  await new Promise(() => {}); // never commits
});
