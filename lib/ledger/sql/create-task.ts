import { randomUUID } from "node:crypto";
import type { PgDirect } from "../../db/pg";
import type { Task } from "../../db/generated/sqlite/client.ts";
import { TaskStage } from "../states";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, NOW, own } from "./pg";

// Task creation in one statement (PostgreSQL; SQLite takes the Prisma path).

const CREATE_TASK = `
WITH ${NOW},
created AS (
  INSERT INTO "Task" ("id","ownerId","conversationId","title","riskLevel","stage","turnId","createdById","createdAt","updatedAt")
  SELECT $1, $2, $3, $4, $5, 'active', $7, $8, now.t, now.t FROM now
  ON CONFLICT ("conversationId","turnId") DO NOTHING
  RETURNING *
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT c."id", NULL, 'task', c."id", $6, '${LedgerEvent.taskCreated}', NULL, 'active', NULL,
    jsonb_build_object('title', c."title", 'conversationId', c."conversationId", 'riskLevel', c."riskLevel", 'turnId', c."turnId"), now.t
  FROM created c, now
  RETURNING "seq"
)
SELECT c.*, (SELECT "seq" FROM event) AS "_seq" FROM created c`;

/**
 * Creates a task; with a turn id, only if its conversation has no task for that turn yet (null then: a
 * concurrent insert of the same turn — a Stop recorded against it, or the same message twice — made it first;
 * the unique index makes this statement wait for that transaction and then skip).
 */
export async function createTaskOnPg(
  pg: PgDirect,
  input: { title: string; ownerId: string; conversationId: string | null; riskLevel: string; turnId?: string | null; createdById?: string | null },
  actor: string,
): Promise<Task | null> {
  const id = randomUUID();
  const [row] = await pg.query(
    CREATE_TASK,
    [id, input.ownerId, input.conversationId, input.title, input.riskLevel, actor, input.turnId ?? null, input.createdById ?? null],
    "stopline_create_task",
  );
  if (!row) return null;
  announce([{ seq: row._seq as number, taskId: id, workItemId: null, type: LedgerEvent.taskCreated, toState: TaskStage.active }]);
  return own<Task>(row);
}
