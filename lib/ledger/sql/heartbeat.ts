import type { PgDirect } from "../../db/pg";
import { LEASED_ITEM_STATUSES } from "../states";
import { NOW } from "./pg";

// Heartbeat: the current holder extends its lease (PostgreSQL; SQLite takes the Prisma path in heartbeat-work-item.ts).

const HEARTBEAT = `
WITH ${NOW},
beat AS (
  UPDATE "WorkItem" w SET "heartbeatAt" = now.t, "leaseExpiresAt" = now.t + make_interval(secs => $3::double precision / 1000)
  FROM now WHERE w."id" = $1 AND w."leaseToken" = $2 AND w."status" = ANY($4::text[])
  RETURNING w."status", w."taskId", w."preparedIntentVersion", w."leaseExpiresAt", w."stopRequestedAt"
)
SELECT b."status", b."preparedIntentVersion", b."leaseExpiresAt", b."stopRequestedAt", t."cancelRequestedAt", t."intentVersion"
FROM beat b JOIN "Task" t ON t."id" = b."taskId"`;

/** Extends the current holder's lease; null when the token is not current (the caller takes the slow path). */
export async function heartbeatOnPg(pg: PgDirect, input: { workItemId: string; leaseToken: string; leaseMs: number }) {
  const [row] = await pg.query<{
    status: string;
    preparedIntentVersion: number;
    leaseExpiresAt: Date;
    stopRequestedAt: Date | null;
    cancelRequestedAt: Date | null;
    intentVersion: number;
  }>(HEARTBEAT, [input.workItemId, input.leaseToken, input.leaseMs, LEASED_ITEM_STATUSES], "stopline_heartbeat");
  return row ?? null;
}
