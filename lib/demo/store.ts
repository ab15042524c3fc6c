import { mkdirSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";

/**
 * The demo world's own database: the authoritative record of what the demo services (shop, crm, mailer,
 * reports, inference) really did. Separate from Stopline's ledger on purpose — it stands for systems
 * Stopline does not own, and tests compare Stopline's summary with its witness log.
 */
export type DemoDb = BetterSqlite3.Database;

export const SERVICES = ["shop", "crm", "mailer", "reports", "inference"] as const;
export type ServiceName = (typeof SERVICES)[number];

export function openDemoStore(file: string): DemoDb {
  if (file !== ":memory:") mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.exec(`
    CREATE TABLE IF NOT EXISTS shop_stock (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL, quantity INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS shop_orders (id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, items TEXT NOT NULL, amount_cents INTEGER NOT NULL,
      status TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS crm_records (id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT NOT NULL,
      version INTEGER NOT NULL DEFAULT 1, archived INTEGER NOT NULL DEFAULT 0, updated_by TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS mailer_messages (id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, recipient TEXT NOT NULL, subject TEXT NOT NULL,
      body TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS report_exports (id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, rows_total INTEGER NOT NULL, rows_written INTEGER NOT NULL,
      status TEXT NOT NULL, lock_held INTEGER NOT NULL, temp_file TEXT, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS witness (seq INTEGER PRIMARY KEY AUTOINCREMENT, service TEXT NOT NULL, action TEXT NOT NULL, subject TEXT, detail TEXT, at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS faults (service TEXT PRIMARY KEY, settings TEXT NOT NULL);
    -- Every write to an order or a CRM record, with the version it produced and who made it: the service's own
    -- evidence of which version the creating call produced and who edited the record since.
    CREATE TABLE IF NOT EXISTS record_history (seq INTEGER PRIMARY KEY AUTOINCREMENT, service TEXT NOT NULL, subject TEXT NOT NULL, version INTEGER NOT NULL,
      by_whom TEXT NOT NULL, action TEXT NOT NULL, at TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS record_history_subject ON record_history (service, subject, seq);
    CREATE TABLE IF NOT EXISTS fences (service TEXT NOT NULL, idempotency_key TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (service, idempotency_key));
  `);
  const stocked = db.prepare("SELECT COUNT(*) AS n FROM shop_stock").get() as { n: number };
  if (stocked.n === 0) {
    const insert = db.prepare("INSERT INTO shop_stock (sku, name, price_cents, quantity) VALUES (?, ?, ?, ?)");
    for (const [sku, name, price, qty] of [
      ["chair", "Oak chair", 6000, 40],
      ["desk", "Standing desk", 42000, 8],
      ["lamp", "Desk lamp", 3500, 100],
      ["mug", "Mug", 900, 500],
    ] as const)
      insert.run(sku, name, price, qty);
  }
  return db;
}

/** Records a write to an order or record: the version it produced, and who made it. */
export function recordWrite(db: DemoDb, service: "shop" | "crm", subject: string, version: number, byWhom: string, action: string) {
  if (!db.open) return;
  db.prepare("INSERT INTO record_history (service, subject, version, by_whom, action, at) VALUES (?, ?, ?, ?, ?, ?)").run(
    service,
    subject,
    version,
    byWhom,
    action,
    new Date().toISOString(),
  );
}

/**
 * The service's evidence about a record: the version its creating call produced, and every later write —
 * who made it and the version it produced (older records without history: created at version 1).
 */
export function recordEvidence(db: DemoDb, service: "shop" | "crm", subject: string) {
  const rows = db.prepare("SELECT version, by_whom, action, at FROM record_history WHERE service = ? AND subject = ? ORDER BY seq").all(service, subject) as {
    version: number;
    by_whom: string;
    action: string;
    at: string;
  }[];
  const created = rows.find((r) => r.action === "created");
  return {
    createdVersion: created?.version ?? 1,
    laterWrites: rows.filter((r) => r !== created).map((r) => ({ version: r.version, by: r.by_whom, action: r.action, at: r.at })),
  };
}

export interface WitnessEntry {
  seq: number;
  service: string;
  action: string;
  subject: string | null;
  detail: unknown;
  at: string;
}

/** What the service really did (append-only). */
export function witness(db: DemoDb, service: ServiceName, action: string, subject: string | null, detail: unknown = null) {
  if (!db.open) return; // the world was shut down under a request still streaming
  db.prepare("INSERT INTO witness (service, action, subject, detail, at) VALUES (?, ?, ?, ?, ?)").run(
    service,
    action,
    subject,
    detail === null ? null : JSON.stringify(detail),
    new Date().toISOString(),
  );
}

export function witnessLog(db: DemoDb, service?: string): WitnessEntry[] {
  const rows = (
    service ? db.prepare("SELECT * FROM witness WHERE service = ? ORDER BY seq").all(service) : db.prepare("SELECT * FROM witness ORDER BY seq").all()
  ) as (Omit<WitnessEntry, "detail"> & { detail: string | null })[];
  return rows.map((r) => ({ ...r, detail: r.detail ? JSON.parse(r.detail) : null }));
}
