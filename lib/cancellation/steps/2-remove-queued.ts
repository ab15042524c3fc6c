import { onEngine, type Database } from "../../db/client";
import { cancelQueuedOnPg, cancelQueuedOnSqlite } from "../../ledger/sql/remove-queued";
import { ENGINE_ACTOR } from "../step-log";

// Step 2 of a Stop (after the boundary): queued children leave dispatch — they never start.

/** Removes every queued child of the task from dispatch: one statement on the driver, each child with its event. */
export function cancelQueued(database: Database, taskId: string): Promise<number> {
  return onEngine(database, {
    sqlite: (direct) => cancelQueuedOnSqlite(direct, taskId, ENGINE_ACTOR),
    postgres: (pg) => cancelQueuedOnPg(pg, taskId, ENGINE_ACTOR),
  });
}
