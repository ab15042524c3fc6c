import path from "node:path";
import { defineConfig } from "prisma/config";

// The CLI downloads its native schema engine unless this names an existing file; see prisma/engine-standin.sh.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, "prisma", "engine-standin.sh");

// Two derived schemas (SQLite, PostgreSQL) share prisma/models.prisma; `--schema` picks one.
export default defineConfig({
  schema: "prisma/sqlite/schema.prisma",
});
