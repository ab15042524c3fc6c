import { onEngine, type Database } from "../db/client";
import type { PgDirect } from "../db/pg";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { staleLeaseError } from "./lease";
import { completeOnPg, completeOnSqlite } from "./sql/report-and-claim";
import { insertEventOnPg } from "./sql/pg";
import { isLeasedItem } from "./states";
import { completionFields, completionRefusal, reportRefusal, type CompleteInput } from "./completion-rules";

export { WorkerOutcome, type CompleteInput } from "./completion-rules";

/**
 * The lease holder reports how its item ended. Stop outcomes (cancelled, partial, cancelled_incomplete) are
 * only accepted when a stop was actually requested. The item's own recorded side effect follows:
 * completed → committed; failed or cancelled by the provider → not committed. One statement on the driver on
 * both engines; a report that the guarded statement refused is explained (and a stale token recorded) here.
 */
export function completeWorkItem(database: Database, input: CompleteInput): Promise<WorkItem> {
  return onEngine(database, { sqlite: (direct) => completeOnSqlite(direct, input), postgres: (pg) => completeOnPostgres(database, pg, input) });
}

/** One guarded statement; a report it refused is explained (and a stale token recorded) here. */
async function completeOnPostgres(database: Database, pg: PgDirect, input: CompleteInput): Promise<WorkItem> {
  const early = reportRefusal(input);
  if (early) throw early;
  const { result, partialResult, partialComplete, error } = completionFields(input, new Date());
  // Twice at most: a stop outcome can be refused by a statement that read the task just before its boundary.
  for (let attempt = 0; ; attempt++) {
    const done = await completeOnPg(pg, input, { result, partialResult, partialComplete, error });
    if (done) return done;
    const item = await database.prisma.workItem.findUnique({ where: { id: input.workItemId }, include: { task: true } });
    if (!item) throw staleLeaseError.notFound(input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      await insertEventOnPg(pg, staleLeaseError.event(item, input.leaseToken, "complete", input.actor, { outcome: input.outcome }));
      throw staleLeaseError.error(item);
    }
    const refusal = completionRefusal(item, item.task, input);
    if (refusal) throw refusal;
    if (attempt === 1) throw staleLeaseError.conflict(item);
  }
}
