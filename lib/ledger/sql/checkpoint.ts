import type { PgDirect } from "../../db/pg";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW } from "./pg";

// Checkpoint: the last guarded look before an effect leaves (PostgreSQL; SQLite takes the Prisma path).

const CHECKPOINT = `
WITH ${NOW},
item AS (
  SELECT w."id", w."taskId", w."preparedIntentVersion", w."proposalVersion",
    t."intentVersion" AS "taskIntentVersion", t."proposalVersion" AS "taskProposalVersion"
  FROM "WorkItem" w JOIN "Task" t ON t."id" = w."taskId"
  WHERE w."id" = $1 AND w."leaseToken" = $2 AND w."status" = 'running'
    AND ($3::int IS NULL OR w."preparedIntentVersion" = $3::int)
    AND ($4::int IS NULL OR w."proposalVersion" IS NOT DISTINCT FROM $4::int)
    AND t."cancelRequestedAt" IS NULL AND t."stage" = 'active' AND t."intentVersion" = w."preparedIntentVersion"
    AND (w."proposalVersion" IS NULL OR w."proposalVersion" = t."proposalVersion")
    AND w."stopRequestedAt" IS NULL -- a Stop of this child (or an ancestor): no commitment (issue 13)
  FOR NO KEY UPDATE OF w
  FOR KEY SHARE OF t
),
passed AS (
  UPDATE "WorkItem" w SET "checkpointPassedAt" = now.t, "updatedAt" = now.t FROM item i, now WHERE w."id" = i."id" RETURNING w."id"
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT i."taskId", i."id", 'checkpoint', i."id", $5, '${LedgerEvent.checkpointPassed}', NULL, NULL, NULL,
    jsonb_build_object('preparedIntentVersion', i."preparedIntentVersion", 'taskIntentVersion', i."taskIntentVersion",
      'confirmedProposalVersion', i."proposalVersion", 'taskProposalVersion', i."taskProposalVersion"), now.t
  FROM item i JOIN passed p ON p."id" = i."id", now
  RETURNING "seq"
)
SELECT i.*, (SELECT "seq" FROM event) AS "_seq" FROM item i`;

/**
 * The checkpoint before a commitment: passes (records `checkpointPassedAt` and `checkpoint.passed`) only while
 * the task has no boundary and neither intent nor confirmed proposal moved. Null when it did not pass — the
 * caller then works out and records why (checkpoint-work-item.ts).
 */
export async function checkpointOnPg(
  pg: PgDirect,
  input: { workItemId: string; leaseToken: string; intentVersion?: number; proposalVersion?: number | null; actor: string },
) {
  const [row] = await pg.query<{ taskId: string; taskIntentVersion: number; taskProposalVersion: number; _seq: number }>(
    CHECKPOINT,
    [input.workItemId, input.leaseToken, input.intentVersion ?? null, input.proposalVersion ?? null, input.actor],
    "stopline_checkpoint",
  );
  if (!row) return null;
  announce([{ seq: row._seq, taskId: row.taskId, workItemId: input.workItemId, type: LedgerEvent.checkpointPassed, toState: null }]);
  return { passed: true as const, intentVersion: row.taskIntentVersion, proposalVersion: row.taskProposalVersion };
}
