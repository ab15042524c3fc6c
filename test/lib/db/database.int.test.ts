import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { completeWorkItem } from "../../../lib/ledger/complete-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { migrate } from "../../../lib/db/migrate";
import { STATEMENT_BUSY_MS } from "../../../lib/db/sqlite-adapter";
import { diffSchemas, listMigrations } from "../../../lib/db/schema-diff";
import { deriveSchemas, type Provider } from "../../../lib/db/schema-source";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const provider: Provider = testEngine();
const modelsPart = (schema: string) => schema.slice(schema.indexOf("// The ONE source of truth"));

/**
 * What the migrations add by hand and Prisma's schema language cannot say: partial indexes (the queue, leases,
 * reconciliation deadlines, one review item's events), the events' append-only triggers and, on PostgreSQL, the
 * commit-order column of the live view (docs/ARCHITECTURE.md). Anything else the migrations make that the schema
 * does not describe is drift.
 */
const HAND_WRITTEN: Record<Provider, string[]> = {
  sqlite: [
    "trigger LedgerEvent_no_delete",
    "trigger LedgerEvent_no_update",
    "index LedgerEvent_reviewItem_idx (entityId,type)",
    "index LedgerEvent_reviewItem_order_idx (seq)",
    "index Task_stop_unsettled_idx (cancelRequestedAt)",
    "index Task_stops_idx (cancelRequestedAt,id)",
    "index WorkItem_leased_idx (leaseExpiresAt)",
    "index WorkItem_queued_idx (toolName,createdAt,id)",
    "index WorkItem_stop_unsettled_idx (stopRequestedAt)",
    "index WorkItem_uncertain_idx (reconcileDeadline)",
  ],
  postgres: [
    "column LedgerEvent.txid xid8 NO pg_current_xact_id()",
    `index CREATE INDEX "LedgerEvent_reviewItem_idx" ON public."LedgerEvent" USING btree ("entityId", type) WHERE ("entityType" = 'reviewItem'::text)`,
    `index CREATE INDEX "LedgerEvent_reviewItem_order_idx" ON public."LedgerEvent" USING btree (txid, seq) WHERE ("entityType" = 'reviewItem'::text)`,
    `index CREATE INDEX "LedgerEvent_txid_seq_idx" ON public."LedgerEvent" USING btree (txid, seq)`,
    `index CREATE INDEX "Task_stop_unsettled_idx" ON public."Task" USING btree ("cancelRequestedAt") WHERE (("cancelRequestedAt" IS NOT NULL) AND ("settledAt" IS NULL))`,
    `index CREATE INDEX "Task_stops_idx" ON public."Task" USING btree ("cancelRequestedAt", id) WHERE ("cancelRequestedAt" IS NOT NULL)`,
    `index CREATE INDEX "WorkItem_leased_idx" ON public."WorkItem" USING btree ("leaseExpiresAt") WHERE ("leaseToken" IS NOT NULL)`,
    `index CREATE INDEX "WorkItem_queued_idx" ON public."WorkItem" USING btree ("toolName", "createdAt", id) WHERE (status = 'queued'::text)`,
    `index CREATE INDEX "WorkItem_stop_unsettled_idx" ON public."WorkItem" USING btree ("stopRequestedAt") WHERE (("stopRequestedAt" IS NOT NULL) AND ("stopSettledAt" IS NULL))`,
    `index CREATE INDEX "WorkItem_uncertain_idx" ON public."WorkItem" USING btree ("reconcileDeadline") WHERE (status = 'uncertain'::text)`,
    "trigger LedgerEvent_no_update_delete",
  ],
};

/** Every table's columns, every index and trigger of a database, one line each (Prisma's own table left out). */
async function shapeOf(url: string): Promise<string[]> {
  if (provider === "sqlite") {
    const db = new BetterSqlite3(url.replace(/^file:/, ""), { readonly: url !== ":memory:" });
    try {
      return shapeOfSqlite(db);
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const lines = async (sql: string) => (await c.query<{ s: string }>(sql)).rows.map((r) => r.s);
    return [
      ...(await lines(`SELECT 'column '||table_name||'.'||column_name||' '||data_type||' '||is_nullable||' '||coalesce(column_default,'') AS s
                       FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT LIKE '_prisma%' ORDER BY 1`)),
      ...(await lines(`SELECT 'index '||indexdef AS s FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT LIKE '_prisma%' ORDER BY 1`)),
      ...(await lines(`SELECT 'trigger '||tgname AS s FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`)),
    ];
  } finally {
    await c.end();
  }
}

function shapeOfSqlite(db: BetterSqlite3.Database): string[] {
  const out: string[] = [];
  const objects = db
    .prepare("SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ESCAPE '\\' AND name NOT LIKE '_prisma%' ESCAPE '\\' ORDER BY name")
    .all() as {
    name: string;
    type: string;
  }[];
  for (const { name, type } of objects) {
    if (type === "table")
      for (const c of db.prepare("SELECT * FROM pragma_table_info(?)").all(name) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: unknown;
        pk: number;
      }[])
        out.push(`column ${name}.${c.name} ${c.type} nn=${c.notnull} default=${c.dflt_value} pk=${c.pk}`);
    else if (type === "index")
      out.push(`index ${name} (${(db.prepare("SELECT name FROM pragma_index_info(?)").all(name) as { name: string }[]).map((r) => r.name).join(",")})`);
    else out.push(`${type} ${name}`);
  }
  return out;
}

/** A database made in one step from a schema (Prisma's SQL from nothing to it), for `shapeOf`; dropped by the caller. */
async function databaseFromSchema(schema: string): Promise<{ url: string; drop(): Promise<void> }> {
  const sql = await diffSchemas(provider, null, schema);
  if (provider === "sqlite") {
    const dir = mkdtempSync(path.join(os.tmpdir(), "stopline-schema-"));
    const file = path.join(dir, "schema.db");
    const db = new BetterSqlite3(file);
    db.exec(sql);
    db.close();
    return { url: `file:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = process.env.TEST_PG_URL!;
  const name = `stopline_schema_${Date.now().toString(36)}`;
  const run = async (url: string, statement: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(statement).finally(() => c.end());
  };
  await run(admin, `CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  await run(u.toString(), sql);
  return { url: u.toString(), drop: () => run(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

describe("one source of truth for both databases", () => {
  it("the committed SQLite and PostgreSQL schemas are exactly what prisma/models.prisma derives (no model change without its migration)", () => {
    for (const { file, text } of deriveSchemas())
      expect(readFileSync(file, "utf8"), `${file} is not what models.prisma derives: make its migration (npx tsx scripts/db-migration-create.ts <name>)`).toBe(
        text,
      );
  });

  it(`the ${provider} migrations make exactly the committed schema, and by hand only what the schema cannot say`, async () => {
    const committed = readFileSync(deriveSchemas().find((s) => s.provider === provider)!.file, "utf8");
    const fromSchema = await databaseFromSchema(committed);
    try {
      const [migrated, described] = await Promise.all([shapeOf(t.url), shapeOf(fromSchema.url)]);
      expect(
        described.filter((line) => !migrated.includes(line)),
        "the schema describes these, and the migrations do not make them",
      ).toEqual([]);
      expect(
        migrated.filter((line) => !described.includes(line)),
        "the migrations make these, and neither the schema nor HAND_WRITTEN names them",
      ).toEqual(HAND_WRITTEN[provider]);
    } finally {
      await fromSchema.drop();
    }
  });

  it("both providers' schemas hold the same models, and both have the same migrations", () => {
    const [sqlite, postgres] = (["sqlite", "postgres"] as const).map((p) => deriveSchemas().find((s) => s.provider === p)!.file);
    expect(modelsPart(readFileSync(sqlite, "utf8"))).toBe(modelsPart(readFileSync(postgres, "utf8")));
    expect(listMigrations("sqlite").map((m) => m.name)).toEqual(listMigrations("postgres").map((m) => m.name));
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
    const script = path.resolve(import.meta.dirname, "../../../test/support/claim-loop.ts");
    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env; // see test/lib/events/sse.int.test.ts
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
