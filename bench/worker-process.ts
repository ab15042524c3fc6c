// A benchmark worker process: claims and completes `bench.work` items until SIGTERM; prints its count.
import { openDatabase } from "../lib/db/client";
import { claimWorkItem } from "../lib/ledger/claim-work-item";
import { completeWorkItem } from "../lib/ledger/complete-work-item";

const [url, workerId] = process.argv.slice(2);
const database = openDatabase(url);
let running = true;
let done = 0;
process.on("SIGTERM", () => (running = false));
while (running) {
  const item = await claimWorkItem(database, { workerId, toolNames: ["bench.work"] });
  if (!item) {
    await new Promise((r) => setTimeout(r, 5));
    continue;
  }
  await completeWorkItem(database, { workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: `worker:${workerId}` }).catch(() => {});
  done++;
}
console.log(JSON.stringify({ workerId, done }));
await database.close();
