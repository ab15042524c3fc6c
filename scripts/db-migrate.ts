import { migrate } from "../lib/db/migrate";
import { resolveDatabase } from "../lib/db/config";

const { applied } = await migrate();
const target = resolveDatabase();
console.log(`${target.provider}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
