import { readFileSync } from "node:fs";
import path from "node:path";

export const PRISMA_DIR = path.resolve(import.meta.dirname, "..", "..", "prisma");
export const PROVIDERS = { sqlite: "sqlite", postgres: "postgresql" } as const;
export type Provider = keyof typeof PROVIDERS;

const header = (provider: Provider) => `// The schema the migrations produce, derived from prisma/models.prisma and written with each migration by
// scripts/db-migration-create.ts. Do not edit: edit models.prisma, then make the migration.

generator client {
  provider     = "prisma-client"
  output       = "../../lib/db/generated/${provider}"
  moduleFormat = "esm"
}

datasource db {
  provider = "${PROVIDERS[provider]}"
}

`;

/** The two provider schemas, derived from the one model source. */
export function deriveSchemas(): { provider: Provider; file: string; text: string }[] {
  const models = readFileSync(path.join(PRISMA_DIR, "models.prisma"), "utf8");
  return (Object.keys(PROVIDERS) as Provider[]).map((provider) => ({
    provider,
    file: path.join(PRISMA_DIR, provider, "schema.prisma"),
    text: header(provider) + models,
  }));
}
