/**
 * npm run token:create -- --role admin|agent|worker --name <name>
 * Creates an API token on the database named by DATABASE_URL (default: the embedded SQLite file) and
 * prints it once. Only its SHA-256 is stored.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { CreateTokenBody } from "../lib/api/schemas";
import { createApiToken } from "../lib/auth/tokens";
import { openDatabase } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";

const { values } = parseArgs({ options: { role: { type: "string" }, name: { type: "string" } } });
const parsed = CreateTokenBody.safeParse({ role: values.role, name: values.name });
if (!parsed.success) {
  console.error(`usage: npm run token:create -- --role admin|agent|worker --name <name>\n${z.prettifyError(parsed.error)}`);
  process.exit(2);
}
await migrate();
const database = openDatabase();
const { token, record } = await createApiToken(database, parsed.data);
await database.close();
console.log(`Created ${record.role} token "${record.name}" (id ${record.id}). It is shown only this once:\n\n  ${token}\n`);
