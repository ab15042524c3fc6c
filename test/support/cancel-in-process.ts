// Records a Stop from a separate OS process (used by tests of cross-process event delivery).
import { openDatabase } from "../../lib/db/client";
import { requestCancellation } from "../../lib/cancellation/steps/1-record-boundary";

const [url, taskId] = process.argv.slice(2);
const database = openDatabase(url);
await requestCancellation(database, { taskId, reason: "stopped from another process", actor: "agent:other-process" });
await database.close();
