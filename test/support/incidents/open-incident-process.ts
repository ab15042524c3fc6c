/**
 * Turns a kill switch on from ANOTHER OS process (as another app instance would, sharing only the database):
 *   DATABASE_URL=… node --import tsx test/support/incidents/open-incident-process.ts <tool|token> <target> <reason> <actor>
 * Prints the result as one JSON line. It runs no engine, no live view and no bus listener: whatever reacts to the
 * switch elsewhere learns of it from the database alone.
 */
import { openDatabase } from "../../../lib/db/client";
import { openIncident } from "../../../lib/incidents/open-incident";

const [targetKind, target, reason, actor] = process.argv.slice(2);
const database = openDatabase(process.env.DATABASE_URL!);
try {
  const result = await openIncident(database, { targetKind: targetKind as "tool" | "token", target, reason, actor, actorId: `token:${actor}` });
  console.log(JSON.stringify({ incidentId: result.incident.id, stoppedWorkItems: result.stoppedWorkItems, stoppedTasks: result.stoppedTasks }));
} finally {
  await database.close();
}
