import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { Mechanism, RiskLevel, WorkItemKind } from "../../lib/ledger/states";
import type { InspectOutcome, ToolContext, ToolDefinition } from "../../lib/tools/contract";

/**
 * A tiny, real HTTP order service for crash tests: the AUTHORITATIVE record of which orders exist.
 *
 *   POST /orders {idempotencyKey, items}  → 201 {orderId, version}       (a new order)
 *                                         → 200 {orderId, version, replayed: true}  (same key: the same order, never a second)
 *   GET  /orders?idempotencyKey=…         → 200 the order | 404
 *
 * It runs in the test process (127.0.0.1, a free port); worker processes reach it by URL. Besides the orders it
 * keeps two witness lists the tests assert on: every order actually created, and every request received —
 * the second one matters because idempotency would hide a re-submission from the first.
 */

export interface Order {
  orderId: string;
  idempotencyKey: string;
  items: { sku: string; qty: number }[];
  /** The record's version (a compensation must check it; this service never changes an order). */
  version: string;
  createdAt: string;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  status: number;
  at: number;
}

export interface OrderService {
  readonly url: string;
  /** Every order this service created, in order of creation (the witness of real side effects). */
  readonly created: readonly Order[];
  /** Every request it answered, in order of arrival. */
  readonly requests: readonly ReceivedRequest[];
  /** How many POST /orders arrived for this idempotency key (a re-run would show up here, even when deduplicated). */
  postsFor(idempotencyKey: string): number;
  /** How many GET /orders?idempotencyKey= lookups arrived for this key (reconciliation shows up here). */
  lookupsFor(idempotencyKey: string): number;
  /**
   * Fault: the next POST that creates an order commits it and then drops the connection without an answer
   * (a timeout or a reset after the service accepted the action — the caller cannot know it took effect).
   */
  loseNextCreateResponse(): void;
  close(): Promise<void>;
}

const OrderRequest = z.object({
  idempotencyKey: z.string().min(1).max(500),
  items: z.array(z.object({ sku: z.string().min(1), qty: z.number().int().positive() })).min(1),
});

export async function startOrderService(): Promise<OrderService> {
  const byKey = new Map<string, Order>();
  const created: Order[] = [];
  const requests: ReceivedRequest[] = [];
  let next = 1;
  let loseNextCreateResponse = false;

  const send = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown, idempotencyKey: string | null) => {
    requests.push({ method: req.method ?? "?", path: (req.url ?? "").split("?")[0], idempotencyKey, status, at: Date.now() });
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname !== "/orders") return send(req, res, 404, { error: "not found" }, null);
      if (req.method === "GET") {
        const key = url.searchParams.get("idempotencyKey");
        if (!key) return send(req, res, 400, { error: "idempotencyKey is required" }, null);
        const order = byKey.get(key);
        return order ? send(req, res, 200, order, key) : send(req, res, 404, { error: "no order with this idempotency key" }, key);
      }
      if (req.method === "POST") {
        let raw = "";
        for await (const chunk of req) raw += chunk;
        let parsed;
        try {
          parsed = OrderRequest.safeParse(JSON.parse(raw));
        } catch {
          return send(req, res, 400, { error: "invalid JSON" }, null);
        }
        if (!parsed.success) return send(req, res, 400, { error: parsed.error.message }, null);
        const { idempotencyKey, items } = parsed.data;
        // Check and insert run in one synchronous step (no await in between): a repeat can never create a second order.
        const existing = byKey.get(idempotencyKey);
        if (existing) return send(req, res, 200, { orderId: existing.orderId, version: existing.version, replayed: true }, idempotencyKey);
        const order: Order = { orderId: `ord_${next++}`, idempotencyKey, items, version: "1", createdAt: new Date().toISOString() };
        byKey.set(idempotencyKey, order);
        created.push(order);
        if (loseNextCreateResponse) {
          loseNextCreateResponse = false;
          requests.push({ method: "POST", path: "/orders", idempotencyKey, status: 0, at: Date.now() }); // 0: no answer was sent
          req.socket.destroy();
          return;
        }
        return send(req, res, 201, { orderId: order.orderId, version: order.version }, idempotencyKey);
      }
      return send(req, res, 405, { error: "method not allowed" }, null);
    } catch (error) {
      if (!res.headersSent) send(req, res, 500, { error: (error as Error).message }, null);
    }
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const count = (method: string, key: string) => requests.filter((r) => r.method === method && r.idempotencyKey === key).length;

  return {
    url: `http://127.0.0.1:${port}`,
    created,
    requests,
    postsFor: (key) => count("POST", key),
    lookupsFor: (key) => count("GET", key),
    loseNextCreateResponse: () => {
      loseNextCreateResponse = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- the Stopline tool for this service ------------------------------------------------------------

export const CREATE_ORDER_TOOL = "shop.create_order";

/**
 * Where a crash-test run stops and waits forever (so the test can SIGKILL the process there):
 * - `before-checkpoint`: claimed, nothing checked or sent;
 * - `after-checkpoint`: the commitment's checkpoint passed, nothing sent yet;
 * - `after-post`: the service created the order, the ledger has not heard of it (ctx.submitted() not called);
 * - `after-submit`: the service created the order and the ledger recorded the submission, not the result;
 * - `never`: runs to completion.
 */
export const HaltPoint = {
  beforeCheckpoint: "before-checkpoint",
  afterCheckpoint: "after-checkpoint",
  afterPost: "after-post",
  afterSubmit: "after-submit",
  never: "never",
} as const;
export type HaltPoint = (typeof HaltPoint)[keyof typeof HaltPoint];
export const isHaltPoint = (s: string): s is HaltPoint => (Object.values(HaltPoint) as string[]).includes(s);

export const CreateOrderInput = z.object({ items: z.array(z.object({ sku: z.string(), qty: z.number().int().positive() })).min(1) });
export type CreateOrderInput = z.infer<typeof CreateOrderInput>;

export interface CreateOrderToolOptions {
  halt?: HaltPoint;
  /** Called when a run reaches its halt point (the crash worker prints it for the test). */
  onHalt?: (point: HaltPoint, info: { workItemId: string; idempotencyKey: string; orderId?: string }) => void;
}

const forever = () => new Promise<never>(() => {});

/**
 * `shop.create_order` against the service at `serviceUrl`: an external action (mechanism "none": a placed order
 * cannot be un-sent) that checkpoints before the commitment, submits with the work item's idempotency key,
 * records the submission, and is inspected by that same key — never by re-submitting.
 */
export function createOrderTool(
  serviceUrl: string,
  options: CreateOrderToolOptions = {},
): ToolDefinition<CreateOrderInput, { orderId: string; version: string }> {
  const halt = options.halt ?? HaltPoint.never;
  const haltAt = async (point: HaltPoint, ctx: ToolContext, orderId?: string) => {
    if (halt !== point) return;
    options.onHalt?.(point, { workItemId: ctx.workItemId, idempotencyKey: ctx.idempotencyKey, ...(orderId ? { orderId } : {}) });
    await forever();
  };
  return {
    name: CREATE_ORDER_TOOL,
    kind: WorkItemKind.externalAction,
    risk: RiskLevel.high,
    commitsEffect: true,
    mechanism: Mechanism.none,
    input: CreateOrderInput,
    async run(input, ctx) {
      await haltAt(HaltPoint.beforeCheckpoint, ctx);
      await ctx.checkpoint();
      await haltAt(HaltPoint.afterCheckpoint, ctx);
      const res = await fetch(`${serviceUrl}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ idempotencyKey: ctx.idempotencyKey, items: input.items }),
      });
      if (res.status !== 200 && res.status !== 201) throw new Error(`the order service answered ${res.status}: ${await res.text()}`);
      const order = (await res.json()) as { orderId: string; version: string };
      await haltAt(HaltPoint.afterPost, ctx, order.orderId);
      await ctx.submitted(order.orderId, {
        externalRecordId: order.orderId,
        externalVersion: order.version,
        reversible: false,
        description: `order ${order.orderId} (${input.items.map((i) => `${i.qty}× ${i.sku}`).join(", ")})`,
      });
      await haltAt(HaltPoint.afterSubmit, ctx, order.orderId);
      return order;
    },
    async inspect(ref): Promise<InspectOutcome> {
      const res = await fetch(`${serviceUrl}/orders?idempotencyKey=${encodeURIComponent(ref.idempotencyKey)}`);
      if (res.status === 404) return { status: "not_committed" };
      if (res.status !== 200) return { status: "unknown", reason: `the order service answered ${res.status}` };
      const order = (await res.json()) as Order;
      return {
        status: "committed",
        externalRecordId: order.orderId,
        externalVersion: order.version,
        result: { orderId: order.orderId, version: order.version },
        description: `order ${order.orderId} (${order.items.map((i) => `${i.qty}× ${i.sku}`).join(", ")})`,
      };
    },
  };
}
