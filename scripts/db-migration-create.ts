/**
 * Developer-time: writes a new migration for BOTH databases from the change in prisma/models.prisma.
 *   npm run db:migration -- <name>
 * The native migrate engine cannot run offline, so this drives Prisma's WebAssembly schema engine with a
 * datamodel-to-datamodel diff (previous migration's schema snapshot → current schema): no shadow database.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deriveSchemas } from "../lib/db/schema-source";
import { diffSchemas, lastMigration, migrationsDir } from "../lib/db/schema-diff";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migration -- <name>   (lowercase letters, digits and _)");
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
for (const { provider, text } of deriveSchemas()) {
  const previous = lastMigration(provider);
  const sql = await diffSchemas(provider, previous?.schema ?? null, text);
  if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
    console.log(`${provider}: no changes`);
    continue;
  }
  const dir = path.join(migrationsDir(provider), `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "migration.sql"), sql);
  writeFileSync(path.join(dir, "schema.prisma"), text);
  console.log(`${provider}: wrote ${path.relative(process.cwd(), dir)}`);
}
