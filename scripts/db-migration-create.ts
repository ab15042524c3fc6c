/**
 * Developer-time: writes a new migration for BOTH databases from the change in prisma/models.prisma.
 *   npx tsx scripts/db-migration-create.ts <name>
 * The native migrate engine cannot run offline, so this drives Prisma's WebAssembly schema engine with a
 * datamodel-to-datamodel diff — from prisma/<provider>/schema.prisma (the schema the migrations so far produce) to
 * what models.prisma derives now: no shadow database. The migration folder gets its SQL; schema.prisma becomes the
 * new schema (one current schema per database, no copy per migration).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deriveSchemas } from "../lib/db/schema-source";
import { diffSchemas, migrationsDir } from "../lib/db/schema-diff";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npx tsx scripts/db-migration-create.ts <name>   (lowercase letters, digits and _)");
  process.exit(2);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
for (const { provider, file, text } of deriveSchemas()) {
  const migrated = existsSync(file) ? readFileSync(file, "utf8") : null;
  const sql = await diffSchemas(provider, migrated, text);
  if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
    // A change the database does not see (a comment, the order of fields): the schema file follows, no migration.
    if (migrated !== text) writeFileSync(file, text);
    console.log(`${provider}: no changes${migrated !== text ? ` (${path.relative(process.cwd(), file)} updated; no SQL)` : ""}`);
    continue;
  }
  const dir = path.join(migrationsDir(provider), `${stamp}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "migration.sql"), sql);
  writeFileSync(file, text);
  console.log(`${provider}: wrote ${path.relative(process.cwd(), dir)} and ${path.relative(process.cwd(), file)}`);
}
