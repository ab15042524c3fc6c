import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PRISMA_DIR, type Provider } from "./schema-source";

export const migrationsDir = (provider: Provider) => path.join(PRISMA_DIR, provider, "migrations");

/** Migration folders of one provider, in the order they apply (each holds its migration.sql). */
export function listMigrations(provider: Provider): { name: string; sql: string }[] {
  const dir = migrationsDir(provider);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name, "migration.sql"), "utf8") }));
}

/**
 * SQL that takes a database from schema `from` (null: empty) to schema `to`, computed by Prisma's
 * WebAssembly schema engine without touching any database (developer time and drift tests only).
 */
export async function diffSchemas(provider: Provider, from: string | null, to: string): Promise<string> {
  const SchemaEngine = await loadSchemaEngine();
  const { bindMigrationAwareSqlAdapterFactory } = await import("@prisma/driver-adapter-utils");
  const factory =
    provider === "sqlite"
      ? new (await import("@prisma/adapter-better-sqlite3")).PrismaBetterSqlite3({ url: ":memory:" })
      : new (await import("@prisma/adapter-pg")).PrismaPg({ connectionString: process.env.TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" });
  const engine = await SchemaEngine.new({ datamodels: undefined }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
  try {
    const target = (content: string) => ({ tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content }] });
    const result = await engine.diff({
      from: from === null ? { tag: "empty" } : target(from),
      to: target(to),
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? "";
  } finally {
    engine.free();
  }
}

/** The package targets bundlers (`import * from "./x.wasm"`); Node needs the module instantiated by hand. */
let engineClass: Promise<typeof import("@prisma/schema-engine-wasm/schema_engine_bg").SchemaEngine> | undefined;
const loadSchemaEngine = () => (engineClass ??= instantiateSchemaEngine());
async function instantiateSchemaEngine() {
  // The engine reports panics through this global; without it a panic hides behind a TypeError.
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(m: string): void } };
  g.PRISMA_WASM_PANIC_REGISTRY ??= { set_message: (m) => console.error(`prisma schema engine panic: ${m}`) };
  const bg = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const { createRequire } = await import("node:module");
  const wasmPath = createRequire(import.meta.url)
    .resolve("@prisma/schema-engine-wasm/schema_engine_bg")
    .replace(/\.js$/, ".wasm");
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), { "./schema_engine_bg.js": bg as never });
  bg.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return bg.SchemaEngine;
}
