/**
 * Derives the SQLite and PostgreSQL schemas from prisma/models.prisma (the one source of truth) and
 * generates both Prisma clients into lib/db/generated/. Runs on `npm install` (postinstall).
 * `--check` only verifies that the committed schemas match what would be derived (used by tests).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { deriveSchemas, PRISMA_DIR } from "../lib/db/schema-source";

const check = process.argv.includes("--check");
let drift = false;
for (const { file, text } of deriveSchemas()) {
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {
    /* absent */
  }
  if (current === text) continue;
  if (check) {
    console.error(`drift: ${path.relative(process.cwd(), file)} differs from prisma/models.prisma`);
    drift = true;
    continue;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
if (check) process.exit(drift ? 1 : 0);

const prismaBin = path.join(PRISMA_DIR, "..", "node_modules", ".bin", "prisma");
for (const provider of ["sqlite", "postgres"]) {
  execFileSync(prismaBin, ["generate", "--schema", path.join(PRISMA_DIR, provider, "schema.prisma")], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  console.log(`generated the ${provider} client`);
}
