// A separate worker process for concurrency tests: claims and completes items of one tool until none is
// left, then prints how many it took as JSON. Exits non-zero on any error (e.g. SQLITE_BUSY).
import { openDatabase } from "../../lib/db/client";
import { claimWorkItem } from "../../lib/ledger/claim-work-item";
import { completeWorkItem } from "../../lib/ledger/complete-work-item";

const [url, toolName, workerId] = process.argv.slice(2);
const database = openDatabase(url);
const done: string[] = [];
for (;;) {
  const item = await claimWorkItem(database, { workerId, toolNames: [toolName] });
  if (!item) break;
  await completeWorkItem(database, { workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: `worker:${workerId}` });
  done.push(item.id);
}
console.log(JSON.stringify({ workerId, done }));
await database.close();
