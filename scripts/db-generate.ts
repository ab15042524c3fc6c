/**
 * Generates both Prisma clients into lib/db/generated/ from prisma/models.prisma (the one source of truth), through
 * the schemas it derives for SQLite and PostgreSQL. Runs on `npm install` (postinstall) and after any model change.
 *
 * It does not write prisma/<provider>/schema.prisma: that file is the schema the migrations produce, written only
 * with a migration (scripts/db-migration-create.ts) — so a model change without a migration shows as a difference
 * (test/lib/db/database.int.test.ts), and the next migration is the diff from it.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deriveSchemas, PRISMA_DIR } from "../lib/db/schema-source";

const prismaBin = path.join(PRISMA_DIR, "..", "node_modules", ".bin", "prisma");
for (const { provider, file, text } of deriveSchemas()) {
  // Beside the committed schema, so the generator's relative output path means the same (gitignored; removed after).
  const derived = path.join(path.dirname(file), ".derived.prisma");
  writeFileSync(derived, text);
  try {
    execFileSync(prismaBin, ["generate", "--schema", derived], { stdio: ["ignore", "ignore", "inherit"] });
  } finally {
    rmSync(derived, { force: true });
  }
  console.log(`generated the ${provider} client`);
}
