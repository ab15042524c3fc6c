import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { effectiveFaults, FaultsSchema, setFaults, getFaults, type Faults } from "./faults";
import { openDemoStore, recordEvidence, recordWrite, SERVICES, witness, witnessLog, type DemoDb, type ServiceName } from "./store";

/**
 * The demo world: five small HTTP services standing for external systems (shop, crm, mailer, reports,
 * inference), each the authoritative record of what it really did, each with fault controls
 * (`POST /{service}/faults`) and a witness log (`GET /{service}/witness`). `npm start` runs it beside
 * the app (lib/runtime/background.ts); tests start it on a free port.
 */
export interface DemoServer {
  url: string;
  db: DemoDb;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Handler = (ctx: {
  db: DemoDb;
  params: string[];
  query: URLSearchParams;
  body: unknown;
  faults: Faults;
  req: http.IncomingMessage;
  res: http.ServerResponse;
}) => Promise<unknown> | unknown;
interface Route {
  method: string;
  pattern: RegExp;
  service: ServiceName;
  handler: Handler;
}

const now = () => new Date().toISOString();
/** The inference service's responses by generation id (in memory: a generation lives as long as its process). */
const generations = new WeakMap<DemoDb, Map<string, { state: "running" | "completed" | "stopped"; text: string; key: string | null }>>();
const generationsOf = (db: DemoDb) => {
  let map = generations.get(db);
  if (!map) generations.set(db, (map = new Map()));
  return map;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const r = schema.safeParse(body);
  if (!r.success) throw new HttpError(400, r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  return r.data;
};
/** "Accept then time out": the effect is committed, the answer never comes (until the caller gives up). */
const hangUntilClosed = (res: http.ServerResponse) =>
  new Promise<never>((_, reject) => {
    // The response's close: on Node 20 the request's "close" has already fired once its body was read.
    if (res.destroyed) return reject(new HttpError(499, "caller went away"));
    res.once("close", () => reject(new HttpError(499, "caller went away")));
  });

const key = z.string().min(1).max(300);

// ---- shop ------------------------------------------------------------------------------------------
type OrderRow = { id: string; idempotency_key: string; items: string; amount_cents: number; status: string; version: number; created_at: string };
/** An order as the shop shows it, with its evidence: the version its creating call produced and every later write. */
const order = (r: OrderRow, db?: DemoDb) => ({
  orderId: r.id,
  idempotencyKey: r.idempotency_key,
  items: JSON.parse(r.items),
  amountCents: r.amount_cents,
  status: r.status,
  version: r.version,
  createdAt: r.created_at,
  ...(db ? recordEvidence(db, "shop", r.id) : { createdVersion: 1, laterWrites: [] }),
});
const findOrder = (db: DemoDb, params: string[], query: URLSearchParams) => {
  const row = (
    params[0]
      ? db.prepare("SELECT * FROM shop_orders WHERE id = ?").get(params[0])
      : db.prepare("SELECT * FROM shop_orders WHERE idempotency_key = ?").get(query.get("idempotencyKey") ?? "")
  ) as OrderRow | undefined;
  if (!row) throw new HttpError(404, "no such order");
  return row;
};

/**
 * A fence withdraws a request by its idempotency key: a create that arrives (or is still being processed)
 * after it is refused, so "not found" becomes a final answer. It never undoes what already committed.
 */
const fenced = (db: DemoDb, service: ServiceName, key: string) =>
  !!db.prepare("SELECT 1 FROM fences WHERE service = ? AND idempotency_key = ?").get(service, key);
const refuseIfFenced = (db: DemoDb, service: ServiceName, key: string) => {
  if (fenced(db, service, key)) throw new HttpError(409, "this request was withdrawn (fenced) before it committed", { fenced: true });
};
const fenceRoute = (service: ServiceName): Route => ({
  method: "POST",
  service,
  pattern: new RegExp(`^/${service}/fence$`),
  handler: ({ db, body, faults }) => {
    if (faults.cancelUnavailable) throw new HttpError(503, "cancel endpoint unavailable");
    const { idempotencyKey } = parse(z.object({ idempotencyKey: key }), body);
    db.prepare("INSERT OR IGNORE INTO fences (service, idempotency_key, at) VALUES (?, ?, ?)").run(service, idempotencyKey, now());
    witness(db, service, "request_fenced", idempotencyKey);
    return { fenced: true, idempotencyKey };
  },
});

// ---- routes ----------------------------------------------------------------------------------------
const routes: Route[] = [
  fenceRoute("shop"),
  fenceRoute("crm"),
  fenceRoute("mailer"),
  fenceRoute("reports"),
  {
    method: "GET",
    service: "shop",
    pattern: /^\/shop\/stock$/,
    handler: ({ db, query }) => {
      const sku = query.get("sku");
      const rows = sku ? db.prepare("SELECT * FROM shop_stock WHERE sku = ?").all(sku) : db.prepare("SELECT * FROM shop_stock ORDER BY sku").all();
      witness(db, "shop", "stock_checked", sku);
      return { stock: rows };
    },
  },
  {
    method: "POST",
    service: "shop",
    pattern: /^\/shop\/orders$/,
    handler: async ({ db, body, faults, res }) => {
      const input = parse(
        z.object({ idempotencyKey: key, items: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(1).max(1000) })).min(1) }),
        body,
      );
      const existing = db.prepare("SELECT * FROM shop_orders WHERE idempotency_key = ?").get(input.idempotencyKey) as OrderRow | undefined;
      if (existing) return order(existing, db); // idempotent: never a second order for the same key
      const created = db.transaction(() => {
        refuseIfFenced(db, "shop", input.idempotencyKey);
        let amount = 0;
        for (const item of input.items) {
          const stock = db.prepare("SELECT * FROM shop_stock WHERE sku = ?").get(item.sku) as { price_cents: number; quantity: number } | undefined;
          if (!stock) throw new HttpError(422, `unknown sku ${item.sku}`);
          if (stock.quantity < item.quantity) throw new HttpError(409, `only ${stock.quantity} ${item.sku} in stock`);
          db.prepare("UPDATE shop_stock SET quantity = quantity - ? WHERE sku = ?").run(item.quantity, item.sku);
          amount += stock.price_cents * item.quantity;
        }
        const id = `ord_${randomUUID().slice(0, 8)}`;
        db.prepare("INSERT INTO shop_orders (id, idempotency_key, items, amount_cents, status, created_at) VALUES (?, ?, ?, ?, 'placed', ?)").run(
          id,
          input.idempotencyKey,
          JSON.stringify(input.items),
          amount,
          now(),
        );
        recordWrite(db, "shop", id, 1, "agent", "created");
        witness(db, "shop", "order_created", id, { items: input.items, amountCents: amount, idempotencyKey: input.idempotencyKey });
        return db.prepare("SELECT * FROM shop_orders WHERE id = ?").get(id) as OrderRow;
      })();
      if (faults.acceptThenTimeout) await hangUntilClosed(res);
      res.statusCode = 201;
      return order(created, db);
    },
  },
  { method: "GET", service: "shop", pattern: /^\/shop\/orders(?:\/([\w-]+))?$/, handler: ({ db, params, query }) => order(findOrder(db, params, query), db) },
  {
    method: "POST",
    service: "shop",
    pattern: /^\/shop\/orders\/([\w-]+)\/cancel$/,
    handler: ({ db, params, faults, res }) => {
      if (faults.cancelUnavailable) throw new HttpError(503, "cancel endpoint unavailable");
      const row = findOrder(db, params, new URLSearchParams());
      if (row.status === "shipped") throw new HttpError(409, "the order has shipped and can no longer be cancelled", { status: row.status });
      res.statusCode = 202;
      if (faults.ignoreCancellation) {
        witness(db, "shop", "cancel_ignored", row.id);
        return { ...order(row, db), acknowledged: true };
      }
      if (row.status === "placed") {
        db.transaction(() => {
          for (const item of JSON.parse(row.items) as { sku: string; quantity: number }[])
            db.prepare("UPDATE shop_stock SET quantity = quantity + ? WHERE sku = ?").run(item.quantity, item.sku);
          db.prepare("UPDATE shop_orders SET status = 'cancelled', version = version + 1 WHERE id = ?").run(row.id);
          recordWrite(db, "shop", row.id, row.version + 1, "agent", "cancelled");
          witness(db, "shop", "order_cancelled", row.id);
        })();
      }
      return { ...order(findOrder(db, params, new URLSearchParams()), db), acknowledged: true };
    },
  },
  {
    method: "POST",
    service: "shop",
    pattern: /^\/shop\/orders\/([\w-]+)\/ship$/,
    handler: ({ db, params }) => {
      const row = findOrder(db, params, new URLSearchParams());
      if (row.status !== "placed") throw new HttpError(409, `the order is ${row.status}`);
      db.prepare("UPDATE shop_orders SET status = 'shipped', version = version + 1 WHERE id = ?").run(row.id);
      recordWrite(db, "shop", row.id, row.version + 1, "warehouse staff", "shipped");
      witness(db, "shop", "order_shipped", row.id);
      return order(findOrder(db, params, new URLSearchParams()), db);
    },
  },

  // ---- crm
  {
    method: "POST",
    service: "crm",
    pattern: /^\/crm\/records$/,
    handler: async ({ db, body, faults, res }) => {
      const input = parse(z.object({ idempotencyKey: key, name: z.string().min(1).max(200), email: z.email() }), body);
      let row = db.prepare("SELECT * FROM crm_records WHERE idempotency_key = ?").get(input.idempotencyKey) as Record<string, unknown> | undefined;
      if (!row) {
        refuseIfFenced(db, "crm", input.idempotencyKey);
        const id = `rec_${randomUUID().slice(0, 8)}`;
        db.prepare("INSERT INTO crm_records (id, idempotency_key, name, email, updated_by, created_at) VALUES (?, ?, ?, ?, 'agent', ?)").run(
          id,
          input.idempotencyKey,
          input.name,
          input.email,
          now(),
        );
        recordWrite(db, "crm", id, 1, "agent", "created");
        witness(db, "crm", "record_created", id, { name: input.name, email: input.email });
        row = db.prepare("SELECT * FROM crm_records WHERE id = ?").get(id) as Record<string, unknown>;
        if (faults.someoneElseEdits) {
          // Other staff edit it right after the agent created it: the agent's answer carries the version it made.
          setImmediate(() => {
            if (!db.open) return;
            editByOtherStaff(db, id);
          });
        }
        if (faults.acceptThenTimeout) await hangUntilClosed(res);
        res.statusCode = 201;
      }
      return record(row, db);
    },
  },
  {
    method: "GET",
    service: "crm",
    pattern: /^\/crm\/records(?:\/([\w-]+))?$/,
    handler: ({ db, params, query }) => {
      const row = params[0]
        ? db.prepare("SELECT * FROM crm_records WHERE id = ?").get(params[0])
        : db.prepare("SELECT * FROM crm_records WHERE idempotency_key = ?").get(query.get("idempotencyKey") ?? "");
      if (!row) throw new HttpError(404, "no such record");
      return record(row as Record<string, unknown>, db);
    },
  },
  {
    method: "POST",
    service: "crm",
    pattern: /^\/crm\/records\/([\w-]+)\/archive$/,
    handler: ({ db, params, req }) => {
      const row = db.prepare("SELECT * FROM crm_records WHERE id = ?").get(params[0]) as Record<string, unknown> | undefined;
      if (!row) throw new HttpError(404, "no such record");
      const ifMatch = req.headers["if-match"];
      if (!ifMatch) throw new HttpError(428, "If-Match with the record version is required");
      if (String(row.version) !== String(ifMatch).replace(/"/g, ""))
        throw new HttpError(412, `the record is at version ${row.version}, not ${ifMatch}: someone else changed it`, { version: row.version });
      db.prepare("UPDATE crm_records SET archived = 1, version = version + 1, updated_by = 'agent' WHERE id = ?").run(params[0]);
      recordWrite(db, "crm", params[0], Number(row.version) + 1, "agent", "archived");
      witness(db, "crm", "record_archived", params[0]);
      return record(db.prepare("SELECT * FROM crm_records WHERE id = ?").get(params[0]) as Record<string, unknown>, db);
    },
  },
  {
    method: "POST",
    service: "crm",
    pattern: /^\/crm\/records\/([\w-]+)\/edit$/,
    handler: ({ db, params }) => {
      if (!editByOtherStaff(db, params[0])) throw new HttpError(404, "no such record");
      return record(db.prepare("SELECT * FROM crm_records WHERE id = ?").get(params[0]) as Record<string, unknown>, db);
    },
  },

  // ---- mailer
  {
    method: "POST",
    service: "mailer",
    pattern: /^\/mailer\/drafts$/,
    handler: ({ db, body, res }) => {
      const input = parse(z.object({ idempotencyKey: key, to: z.email(), subject: z.string().min(1).max(300), body: z.string().max(20_000) }), body);
      let row = db.prepare("SELECT * FROM mailer_messages WHERE idempotency_key = ?").get(input.idempotencyKey);
      if (!row) {
        refuseIfFenced(db, "mailer", input.idempotencyKey);
        const id = `msg_${randomUUID().slice(0, 8)}`;
        db.prepare("INSERT INTO mailer_messages (id, idempotency_key, recipient, subject, body, status, created_at) VALUES (?, ?, ?, ?, ?, 'draft', ?)").run(
          id,
          input.idempotencyKey,
          input.to,
          input.subject,
          input.body,
          now(),
        );
        witness(db, "mailer", "draft_created", id, { to: input.to });
        row = db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(id);
        res.statusCode = 201;
      }
      return message(row as Record<string, unknown>);
    },
  },
  {
    method: "POST",
    service: "mailer",
    pattern: /^\/mailer\/drafts\/([\w-]+)\/discard$/,
    handler: ({ db, params, faults }) => {
      const row = db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(params[0]) as { status: string } | undefined;
      if (!row) throw new HttpError(404, "no such draft");
      if (row.status === "sent") throw new HttpError(409, "already sent: an email cannot be unsent");
      if (row.status === "draft" && faults.failToRelease) {
        witness(db, "mailer", "discard_failed", params[0]); // answered, but the draft stays: the caller must read the status
      } else if (row.status === "draft") {
        db.prepare("UPDATE mailer_messages SET status = 'discarded' WHERE id = ?").run(params[0]);
        witness(db, "mailer", "draft_discarded", params[0]);
      }
      return message(db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(params[0]) as Record<string, unknown>);
    },
  },
  {
    method: "POST",
    service: "mailer",
    pattern: /^\/mailer\/drafts\/([\w-]+)\/send$/,
    handler: async ({ db, params, faults, res }) => {
      const row = db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(params[0]) as { status: string } | undefined;
      if (!row) throw new HttpError(404, "no such draft");
      if (row.status === "discarded") throw new HttpError(409, "the draft was discarded");
      if (row.status === "draft") {
        refuseIfFenced(db, "mailer", (row as unknown as { idempotency_key: string }).idempotency_key);
        db.prepare("UPDATE mailer_messages SET status = 'sent' WHERE id = ?").run(params[0]);
        witness(db, "mailer", "email_sent", params[0]);
      }
      if (faults.acceptThenTimeout) await hangUntilClosed(res);
      return message(db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(params[0]) as Record<string, unknown>);
    },
  },
  {
    method: "GET",
    service: "mailer",
    pattern: /^\/mailer\/messages(?:\/([\w-]+))?$/,
    handler: ({ db, params, query }) => {
      const row = params[0]
        ? db.prepare("SELECT * FROM mailer_messages WHERE id = ?").get(params[0])
        : db.prepare("SELECT * FROM mailer_messages WHERE idempotency_key = ?").get(query.get("idempotencyKey") ?? "");
      if (!row) throw new HttpError(404, "no such message");
      return message(row as Record<string, unknown>);
    },
  },

  // ---- reports
  {
    method: "POST",
    service: "reports",
    pattern: /^\/reports\/exports$/,
    handler: ({ db, body, res }) => {
      const input = parse(
        z.object({ idempotencyKey: key, rows: z.number().int().min(1).max(100_000), rowMs: z.number().int().min(1).max(10_000).optional() }),
        body,
      );
      let row = db.prepare("SELECT * FROM report_exports WHERE idempotency_key = ?").get(input.idempotencyKey) as ExportRow | undefined;
      if (!row) {
        refuseIfFenced(db, "reports", input.idempotencyKey); // withdrawn before it started: it takes nothing
        const id = `exp_${randomUUID().slice(0, 8)}`;
        const temp = `/tmp/stopline-demo-${id}.csv`;
        db.prepare(
          "INSERT INTO report_exports (id, idempotency_key, rows_total, rows_written, status, lock_held, temp_file, created_at) VALUES (?, ?, ?, 0, 'running', 1, ?, ?)",
        ).run(id, input.idempotencyKey, input.rows, temp, now());
        witness(db, "reports", "export_started", id, { rows: input.rows });
        witness(db, "reports", "lock_acquired", id, { tempFile: temp });
        startExport(db, id, input.rowMs ?? 20);
        row = db.prepare("SELECT * FROM report_exports WHERE id = ?").get(id) as ExportRow;
      }
      res.statusCode = 202;
      return exportView(row);
    },
  },
  {
    method: "GET",
    service: "reports",
    pattern: /^\/reports\/exports(?:\/([\w-]+))?$/,
    handler: ({ db, params, query }) => {
      const row = (
        params[0]
          ? db.prepare("SELECT * FROM report_exports WHERE id = ?").get(params[0])
          : db.prepare("SELECT * FROM report_exports WHERE idempotency_key = ?").get(query.get("idempotencyKey") ?? "")
      ) as ExportRow | undefined;
      if (!row) throw new HttpError(404, "no such export");
      return exportView(row);
    },
  },
  {
    method: "POST",
    service: "reports",
    pattern: /^\/reports\/exports\/([\w-]+)\/cancel$/,
    handler: ({ db, params, faults, res }) => {
      if (faults.cancelUnavailable) throw new HttpError(503, "cancel endpoint unavailable");
      const row = db.prepare("SELECT * FROM report_exports WHERE id = ?").get(params[0]) as ExportRow | undefined;
      if (!row) throw new HttpError(404, "no such export");
      res.statusCode = 202;
      if (faults.ignoreCancellation) {
        witness(db, "reports", "cancel_ignored", row.id);
      } else if (row.status === "running") {
        db.prepare("UPDATE report_exports SET status = 'cancelled' WHERE id = ? AND status = 'running'").run(row.id);
        witness(db, "reports", "export_cancelled", row.id, { rowsWritten: row.rows_written });
      }
      return { ...exportView(db.prepare("SELECT * FROM report_exports WHERE id = ?").get(row.id) as ExportRow), acknowledged: true };
    },
  },
  {
    method: "POST",
    service: "reports",
    pattern: /^\/reports\/exports\/([\w-]+)\/release$/,
    handler: ({ db, params, faults }) => {
      const row = db.prepare("SELECT * FROM report_exports WHERE id = ?").get(params[0]) as ExportRow | undefined;
      if (!row) throw new HttpError(404, "no such export");
      if (row.status === "running") throw new HttpError(409, "the export is still running; cancel it first");
      if (faults.failToRelease) {
        witness(db, "reports", "release_failed", row.id);
      } else if (row.lock_held) {
        db.prepare("UPDATE report_exports SET lock_held = 0, temp_file = NULL WHERE id = ?").run(row.id);
        witness(db, "reports", "lock_released", row.id);
      }
      return exportView(db.prepare("SELECT * FROM report_exports WHERE id = ?").get(row.id) as ExportRow);
    },
  },

  // ---- inference: a streamed model response stand-in
  {
    method: "POST",
    service: "inference",
    pattern: /^\/inference\/generate$/,
    handler: async ({ db, body, req, res }) => {
      const input = parse(
        z.object({
          prompt: z.string().min(1).max(10_000),
          words: z.number().int().min(1).max(2_000).optional(),
          wordMs: z.number().int().min(0).max(5_000).optional(),
          idempotencyKey: z.string().min(1).max(200).optional(),
        }),
        body,
      );
      const id = `gen_${randomUUID().slice(0, 8)}`;
      // A stand-in for a model told exactly what to say: it streams its prompt back, word by word (the demo agent
      // puts in it what will actually happen next — lib/agent/conversation.ts whatHappensNext).
      const words = input.prompt.split(/\s+/).filter(Boolean);
      const total = input.words ?? words.length;
      // The caller's key (when it sends one) names whose generation this is: a request its caller gave up on during the
      // latency fault still arrives and starts — later, possibly while another call of the same caller runs.
      witness(db, "inference", "generation_started", id, input.idempotencyKey ? { key: input.idempotencyKey } : null);
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-generation-id": id });
      let closed = res.destroyed;
      let sent = 0;
      let text = "";
      const key = input.idempotencyKey ?? null;
      generationsOf(db).set(id, { state: "running", text, key });
      // A closed stream stops the generation at once (no further word is produced): asked from now on, it is stopped.
      res.once("close", () => {
        closed = !res.writableEnded;
        if (closed) generationsOf(db).set(id, { state: "stopped", text, key });
      });
      // (the close may have come before the listener — a caller gone during the latency fault: res.destroyed says so)
      for (; sent < total && !(closed ||= res.destroyed); sent++) {
        const word = `${words[sent % words.length]} `;
        res.write(word);
        text += word;
        await sleep(input.wordMs ?? 30);
      }
      witness(db, "inference", closed ? "generation_stopped" : "generation_completed", id, { words: sent });
      generationsOf(db).set(id, { state: closed ? "stopped" : "completed", text, key });
      res.end();
      return RAW;
    },
  },
  // What became of a generation whose stream the caller stopped reading: a provider's record of the response (the
  // caller may have aborted after the last word left, and then the reply was complete at the service).
  // The generation a caller's key started (the latest, if a retry started another): how a caller whose process died
  // mid-stream — it never saw the generation id — learns whether the reply finished at the service.
  {
    method: "GET",
    service: "inference",
    pattern: /^\/inference\/generations$/,
    handler: ({ db, query }) => {
      const key = query.get("key");
      if (!key) throw new HttpError(400, "key is required");
      const found = [...generationsOf(db).entries()].filter(([, g]) => g.key === key).at(-1);
      if (!found) throw new HttpError(404, "no generation for this key");
      const [id, generation] = found;
      return { id, state: generation.state, text: generation.state === "completed" ? generation.text.trim() : null };
    },
  },
  {
    method: "GET",
    service: "inference",
    pattern: /^\/inference\/generations\/([\w-]+)$/,
    handler: ({ db, params }) => {
      const generation = generationsOf(db).get(params[0]!);
      if (!generation) throw new HttpError(404, "no such generation");
      return { id: params[0], state: generation.state, text: generation.state === "completed" ? generation.text.trim() : null };
    },
  },
];

const RAW = Symbol("response already written");

type ExportRow = {
  id: string;
  idempotency_key: string;
  rows_total: number;
  rows_written: number;
  status: string;
  lock_held: number;
  temp_file: string | null;
  created_at: string;
};
const exportView = (r: ExportRow) => ({
  exportId: r.id,
  idempotencyKey: r.idempotency_key,
  status: r.status,
  rowsTotal: r.rows_total,
  rowsWritten: r.rows_written,
  // A cancelled export leaves a complete prefix: rows 1..rowsWritten, each whole.
  rows: Array.from({ length: r.rows_written }, (_, i) => `row ${i + 1}`),
  lockHeld: r.lock_held === 1,
  tempFile: r.temp_file,
});
/** A CRM record as the CRM shows it, with its evidence: the version its creating call produced and every later write. */
const record = (r: Record<string, unknown>, db: DemoDb) => ({
  recordId: r.id,
  idempotencyKey: r.idempotency_key,
  name: r.name,
  email: r.email,
  version: r.version,
  archived: r.archived === 1,
  updatedBy: r.updated_by,
  ...recordEvidence(db, "crm", String(r.id)),
});
/** Other staff change the record (its version moves on). False when there is no such record. */
function editByOtherStaff(db: DemoDb, id: string): boolean {
  const changed = db.prepare("UPDATE crm_records SET version = version + 1, updated_by = 'other staff', name = name || ' (edited)' WHERE id = ?").run(id);
  if (!changed.changes) return false;
  const { version } = db.prepare("SELECT version FROM crm_records WHERE id = ?").get(id) as { version: number };
  recordWrite(db, "crm", id, version, "other staff", "edited");
  witness(db, "crm", "record_edited_by_other_staff", id);
  return true;
}
const message = (r: Record<string, unknown>) => ({ messageId: r.id, idempotencyKey: r.idempotency_key, to: r.recipient, subject: r.subject, status: r.status });

const timers = new WeakMap<DemoDb, Set<NodeJS.Timeout>>();
function startExport(db: DemoDb, id: string, rowMs: number) {
  const set = timers.get(db) ?? new Set();
  timers.set(db, set);
  const timer = setInterval(() => {
    const row = db.prepare("SELECT * FROM report_exports WHERE id = ?").get(id) as ExportRow | undefined;
    if (!row || row.status !== "running") return stop();
    const written = row.rows_written + 1;
    if (written >= row.rows_total) {
      // finished normally: the service itself releases the lock and the temp file
      db.prepare("UPDATE report_exports SET rows_written = ?, status = 'completed', lock_held = 0, temp_file = NULL WHERE id = ?").run(row.rows_total, id);
      witness(db, "reports", "export_completed", id, { rows: row.rows_total });
      witness(db, "reports", "lock_released", id);
      return stop();
    }
    db.prepare("UPDATE report_exports SET rows_written = ? WHERE id = ?").run(written, id);
  }, rowMs);
  set.add(timer);
  const stop = () => {
    clearInterval(timer);
    set.delete(timer);
  };
}

export async function startDemoServer(options: { file: string; port?: number; host?: string }): Promise<DemoServer> {
  const db = openDemoStore(options.file);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://demo");
    const send = (status: number, body: unknown) => {
      if (res.headersSent) return void res.end();
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const service = url.pathname.split("/")[1] as ServiceName;
      // fault controls and witness logs of every service
      if (SERVICES.includes(service) && url.pathname === `/${service}/faults`) {
        if (req.method === "GET") return send(200, getFaults(db, service));
        if (req.method === "POST") return send(200, setFaults(db, service, FaultsSchema.parse(await readBody(req))));
      }
      if (SERVICES.includes(service) && url.pathname === `/${service}/witness` && req.method === "GET") return send(200, { witness: witnessLog(db, service) });
      const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
      if (!route) return send(404, { error: `no route ${req.method} ${url.pathname}` });
      const faults = effectiveFaults(db, route.service, (req.headers["x-demo-faults"] as string | undefined) ?? null);
      const body = req.method === "POST" ? await readBody(req) : undefined;
      if (faults.latencyMs) await sleep(faults.latencyMs);
      res.statusCode = 200;
      const result = await route.handler({
        db,
        params: route.pattern
          .exec(url.pathname)!
          .slice(1)
          .filter((p) => p !== undefined),
        query: url.searchParams,
        body,
        faults,
        req,
        res,
      });
      if (result !== RAW) send(res.statusCode, result);
    } catch (error) {
      if (error instanceof HttpError) return send(error.status, { error: error.message, ...error.extra });
      if (error instanceof z.ZodError) return send(400, { error: error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
      console.error("demo service error", error);
      send(500, { error: "internal error" });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    async close() {
      for (const t of timers.get(db) ?? []) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "the body is not valid JSON");
  }
}
