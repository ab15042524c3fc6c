import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimWorkItem } from "../ledger/claim-work-item";
import { completeWorkItem } from "../ledger/complete-work-item";
import { createTask } from "../ledger/create-task";
import { scheduleWorkItem } from "../ledger/schedule-work-item";
import { createTestDatabase, testEngine, type TestDatabase } from "./scratch-database";
import { migrate } from "./migrate";
import { STATEMENT_BUSY_MS } from "./sqlite-adapter";
import { diffSchemas, listMigrations } from "./schema-diff";
import { deriveSchemas, type Provider } from "./schema-source";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const provider: Provider = testEngine();
const modelsPart = (schema: string) => schema.slice(schema.indexOf("// The ONE source of truth"));

describe("one source of truth for both databases", () => {
  it("the committed SQLite and PostgreSQL schemas are exactly what prisma/models.prisma derives", async () => {
    const { readFileSync } = await import("node:fs");
    for (const { file, text } of deriveSchemas()) expect(readFileSync(file, "utf8"), `${file} drifted: run npm run db:generate`).toBe(text);
  });

  it(`the ${provider} migrations produce the current models (no model change without a migration)`, async () => {
    const current = deriveSchemas().find((s) => s.provider === provider)!.text;
    const last = listMigrations(provider).at(-1)!;
    expect(last.schema, "each migration folder keeps the schema it was made from").not.toBeNull();
    const sql = await diffSchemas(provider, last.schema, current);
    expect(sql.replace(/--.*$/gm, "").trim(), `models changed since the last ${provider} migration: run scripts/db-migration-create.ts`).toBe("");
  });

  it("both providers' migration histories were made from the same models", () => {
    const sqlite = listMigrations("sqlite");
    const postgres = listMigrations("postgres");
    expect(sqlite.map((m) => m.name)).toEqual(postgres.map((m) => m.name));
    for (let i = 0; i < sqlite.length; i++) expect(modelsPart(sqlite[i].schema!)).toBe(modelsPart(postgres[i].schema!));
  });

  it("migrating twice applies nothing the second time and keeps Prisma's migration records", async () => {
    expect((await migrate(t.url)).applied).toEqual([]);
    const rows = await t.database.prisma.$queryRawUnsafe<{ migration_name: string }[]>(`SELECT migration_name FROM _prisma_migrations ORDER BY migration_name`);
    expect(rows.map((r) => r.migration_name)).toEqual(listMigrations(provider).map((m) => m.name));
  });
});

describe("durability and concurrency", () => {
  it.runIf(provider === "sqlite")(
    "SQLite runs in WAL mode with synchronous=FULL; a statement blocks the process at most a few ms (longer waits for the write lock are asynchronous and bounded)",
    async () => {
      const [mode] = await t.database.prisma.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
      const [sync] = await t.database.prisma.$queryRawUnsafe<{ synchronous: bigint }[]>("PRAGMA synchronous");
      const [busy] = await t.database.prisma.$queryRawUnsafe<{ timeout: bigint }[]>("PRAGMA busy_timeout");
      expect(mode.journal_mode).toBe("wal");
      expect(Number(sync.synchronous)).toBe(2); // FULL
      // better-sqlite3 is synchronous: SQLite's busy handler would stall the event loop for its whole timeout.
      expect(Number(busy.timeout)).toBeLessThanOrEqual(STATEMENT_BUSY_MS);
      expect(Number(busy.timeout)).toBeGreaterThan(0);
    },
  );

  it("the app and two worker processes writing at once: no busy errors, every item claimed exactly once", async () => {
    const task = await createTask(t.database, { title: "contention", ownerId: "o" }, "agent:t");
    const items = [];
    for (let i = 0; i < 60; i++)
      items.push(
        await scheduleWorkItem(
          t.database,
          { taskId: task.id, kind: "local_worker", toolName: "tool.contended", mechanism: "abort_signal", intentVersion: 1 },
          "agent:t",
        ),
      );
    const script = path.resolve(import.meta.dirname, "../../test/support/claim-loop.ts");
    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env; // see lib/events/sse.int.test.ts
    const child = (workerId: string) =>
      new Promise<string[]>((resolve, reject) => {
        const p = spawn(process.execPath, ["--import", "tsx", script, t.url, "tool.contended", workerId], { stdio: ["ignore", "pipe", "inherit"], env });
        let out = "";
        p.stdout.on("data", (d) => (out += d));
        p.on("exit", (code) =>
          code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!).done) : reject(new Error(`worker ${workerId} exited ${code}`)),
        );
      });
    const inApp = (async () => {
      const done: string[] = [];
      await new Promise((r) => setTimeout(r, 300)); // let the children start
      for (;;) {
        const item = await claimWorkItem(t.database, { workerId: "app", toolNames: ["tool.contended"] });
        if (!item) return done;
        await completeWorkItem(t.database, { workItemId: item.id, leaseToken: item.leaseToken!, outcome: "completed", actor: "worker:app" });
        done.push(item.id);
      }
    })();
    const results = await Promise.all([child("p1"), child("p2"), inApp]);
    const all = results.flat();
    expect(all.sort()).toEqual(items.map((i) => i.id).sort());
    expect(await t.database.prisma.workItem.count({ where: { taskId: task.id, status: "completed" } })).toBe(60);
  }, 60_000);
});
