import { z } from "zod";
import { StoppedError, type CallRef, type InspectOutcome, type ToolContext, type ToolDefinition } from "../tools/contract";

/**
 * Stopline tools for the demo services, talking to them over HTTP like to any external system. Each
 * declares how it is stopped, inspected and compensated (lib/tools/contract.ts).
 */
export interface DemoToolOptions {
  /** The demo services' base URL. */
  baseUrl: string;
  /** A call that gets no answer within this long is abandoned (its outcome is then reconciled). */
  callTimeoutMs?: number;
  /** How often a running export is polled. */
  pollMs?: number;
}

class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function demoTools(options: DemoToolOptions): ToolDefinition[] {
  const base = options.baseUrl.replace(/\/$/, "");
  const timeoutMs = options.callTimeoutMs ?? 5_000;
  const call = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    init: { body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): Promise<T> => {
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal,
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : {};
    if (!res.ok) throw new ServiceError(res.status, `${method} ${path} → ${res.status}: ${json.error ?? text}`);
    return json as T;
  };
  /** Looks a call up by its idempotency key; null when the service has no record of it. */
  const lookup = async <T>(path: string, ref: CallRef): Promise<T | null> => {
    try {
      return await call<T>("GET", `${path}?idempotencyKey=${encodeURIComponent(ref.idempotencyKey)}`);
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return null;
      throw error;
    }
  };
  const fence = async (service: string, ref: CallRef) => {
    await call("POST", `/${service}/fence`, { body: { idempotencyKey: ref.idempotencyKey } });
  };
  const unknown = (error: unknown): InspectOutcome => ({ status: "unknown", reason: `the service could not be asked: ${(error as Error).message}` });

  type History = { createdVersion: number; laterWrites: { version: number; by: string; action: string; at: string }[] };
  type Order = History & { orderId: string; status: string; version: number; amountCents: number; items: { sku: string; quantity: number }[] };
  type Record_ = History & { recordId: string; version: number; archived: boolean; name: string };
  /** The service's evidence about a record: the version the agent's write produced, the version now, who wrote since. */
  const evidenceOf = (r: History & { version: number }) => ({
    createdVersion: String(r.createdVersion),
    currentVersion: String(r.version),
    editedBy: [...new Set(r.laterWrites.filter((w) => w.by !== "agent").map((w) => w.by))],
    laterWrites: r.laterWrites,
  });
  type Message = { messageId: string; status: string; to: string };
  type Export = { exportId: string; status: string; rowsWritten: number; rowsTotal: number; rows: string[]; lockHeld: boolean; tempFile: string | null };

  const checkStock: ToolDefinition<{ sku?: string }> = {
    name: "shop.check_stock",
    kind: "remote_tool",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    input: z.object({ sku: z.string().optional() }),
    run: (input, ctx) => call("GET", `/shop/stock${input.sku ? `?sku=${encodeURIComponent(input.sku)}` : ""}`, { signal: ctx.signal }),
  };

  const createOrder: ToolDefinition<{ items: { sku: string; quantity: number }[] }> = {
    name: "shop.create_order",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "provider_cancel",
    input: z.object({ items: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(1) })).min(1) }),
    async run(input, ctx) {
      await ctx.checkpoint(); // the commitment: refused after Stop or if the confirmed proposal changed
      const order = await call<Order>("POST", "/shop/orders", { body: { idempotencyKey: ctx.idempotencyKey, items: input.items }, signal: ctx.signal });
      await ctx.submitted(order.orderId, {
        externalRecordId: order.orderId,
        externalVersion: String(order.createdVersion),
        reversible: true,
        description: `order ${order.orderId} (${describeItems(order.items)}, ${money(order.amountCents)})`,
      });
      return order;
    },
    // Withdraws the request if it has not committed (a fence by idempotency key). A placed order is NOT
    // cancelled here: that is a compensation, which needs a person's approval.
    cancel: (ref) => fence("shop", ref),
    async inspect(ref) {
      try {
        const order = await lookup<Order>("/shop/orders", ref);
        if (!order || order.status === "cancelled") return { status: "not_committed" };
        return {
          status: "committed",
          externalRecordId: order.orderId,
          externalVersion: String(order.createdVersion),
          currentVersion: String(order.version),
          evidence: evidenceOf(order),
          result: order,
          description: `order ${order.orderId} (${describeItems(order.items)}, ${money(order.amountCents)})`,
        };
      } catch (error) {
        return unknown(error);
      }
    },
    async compensate(effect, expectedVersion) {
      const order = await call<Order>("GET", `/shop/orders/${effect.externalRecordId}`);
      if (String(order.version) !== expectedVersion)
        return {
          status: "conflict",
          currentVersion: String(order.version),
          detail: `order ${order.orderId} is at version ${order.version}, not ${expectedVersion}`,
        };
      if (order.status === "shipped") return { status: "failed", detail: `order ${order.orderId} has shipped and can no longer be cancelled` };
      await call("POST", `/shop/orders/${order.orderId}/cancel`);
      const after = await call<Order>("GET", `/shop/orders/${order.orderId}`);
      return after.status === "cancelled"
        ? { status: "compensated", detail: `order ${order.orderId} cancelled` }
        : { status: "failed", detail: `the shop acknowledged but the order is ${after.status}` };
    },
    describeEffect: (e) => e.description ?? `order ${e.externalRecordId}`,
  };

  const createRecord: ToolDefinition<{ name: string; email: string }> = {
    name: "crm.create_record",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "provider_cancel",
    input: z.object({ name: z.string().min(1), email: z.email() }),
    async run(input, ctx) {
      await ctx.checkpoint();
      const record = await call<Record_>("POST", "/crm/records", { body: { idempotencyKey: ctx.idempotencyKey, ...input }, signal: ctx.signal });
      // The version THIS write produced (the record may already have been edited by someone else since).
      await ctx.submitted(record.recordId, {
        externalRecordId: record.recordId,
        externalVersion: String(record.createdVersion),
        reversible: true,
        description: `CRM record ${record.recordId} for ${input.name}`,
      });
      return record;
    },
    cancel: (ref) => fence("crm", ref), // withdraws a create that has not committed; archiving is compensation
    async inspect(ref) {
      try {
        const record = await lookup<Record_>("/crm/records", ref);
        if (!record) return { status: "not_committed" };
        return {
          status: "committed",
          externalRecordId: record.recordId,
          externalVersion: String(record.createdVersion),
          currentVersion: String(record.version),
          evidence: evidenceOf(record),
          result: record,
          description: `CRM record ${record.recordId} for ${record.name}`,
        };
      } catch (error) {
        return unknown(error);
      }
    },
    async compensate(effect, expectedVersion) {
      try {
        await call("POST", `/crm/records/${effect.externalRecordId}/archive`, { headers: { "if-match": String(expectedVersion) } });
        return { status: "compensated", detail: `CRM record ${effect.externalRecordId} archived` };
      } catch (error) {
        if (error instanceof ServiceError && error.status === 412) {
          const current = await call<Record_>("GET", `/crm/records/${effect.externalRecordId}`);
          return { status: "conflict", currentVersion: String(current.version), detail: error.message };
        }
        return { status: "failed", detail: (error as Error).message };
      }
    },
    describeEffect: (e) => e.description ?? `CRM record ${e.externalRecordId}`,
  };

  const sendEmail: ToolDefinition<{ to: string; subject: string; body: string }> = {
    name: "mailer.send_email",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "provider_cancel",
    resources: ["mail_draft"], // written ahead: a call may leave a draft (named by the call's idempotency key)
    input: z.object({ to: z.email(), subject: z.string().min(1), body: z.string() }),
    async run(input, ctx) {
      // Preparation: a draft can be discarded; sending cannot be undone. The draft is held as a resource
      // (by idempotency key, before it exists) so that one created by a request still in flight at a Stop is
      // discarded and verified by the engine too.
      await ctx.holdResource("mail_draft", ctx.idempotencyKey);
      const draft = await call<Message>("POST", "/mailer/drafts", { body: { idempotencyKey: ctx.idempotencyKey, ...input }, signal: ctx.signal });
      try {
        await ctx.checkpoint();
      } catch (error) {
        await discardDraft(draft.messageId, ctx);
        throw new StoppedError(`the draft was discarded before sending: ${(error as Error).message}`);
      }
      const sent = await call<Message>("POST", `/mailer/drafts/${draft.messageId}/send`, { signal: ctx.signal });
      await ctx.submitted(sent.messageId, { externalRecordId: sent.messageId, reversible: false, description: `email "${input.subject}" to ${input.to}` });
      await ctx.releaseResource("mail_draft", ctx.idempotencyKey); // sent: no draft is left
      return sent;
    },
    cancel: (ref) => fence("mailer", ref), // withdraws a draft or send that has not happened; a sent email stays sent
    async cleanup(resource) {
      await call("POST", "/mailer/fence", { body: { idempotencyKey: resource.handle } });
      const message = await lookup<Message>("/mailer/messages", { idempotencyKey: resource.handle } as CallRef);
      if (message?.status === "draft") await call("POST", `/mailer/drafts/${message.messageId}/discard`);
    },
    async verifyReleased(resource) {
      const message = await lookup<Message>("/mailer/messages", { idempotencyKey: resource.handle } as CallRef);
      return !message || message.status !== "draft";
    },
    async inspect(ref) {
      try {
        const message = await lookup<Message>("/mailer/messages", ref);
        if (!message) return { status: "not_committed", holds: [] };
        const holds = message.status === "draft" ? [{ type: "mail_draft", handle: ref.idempotencyKey }] : [];
        // A draft that was never sent: not committed; what was prepared is reported as discarded work.
        if (message.status !== "sent")
          return { status: "not_committed", partialResult: { draft: message.messageId, discarded: true }, partialComplete: false, holds }; // the engine discards it (the mail_draft resource) and verifies
        return { status: "committed", externalRecordId: message.messageId, result: message, description: `email to ${message.to}`, holds };
      } catch (error) {
        return unknown(error);
      }
    },
    describeEffect: (e) => e.description ?? `email ${e.externalRecordId}`,
  };
  /** Discards the draft and reports what the mailer answered: "discarded" only when the mailer says so. */
  async function discardDraft(messageId: string, ctx: ToolContext) {
    const answer = await call<Message>("POST", `/mailer/drafts/${messageId}/discard`).catch(() => null);
    await ctx.reportPartial({ draft: messageId, discarded: answer?.status === "discarded" }, { complete: false });
  }

  const exportReport: ToolDefinition<{ rows: number; rowMs?: number }> = {
    name: "reports.export_report",
    kind: "remote_tool",
    risk: "low",
    commitsEffect: false,
    mechanism: "provider_cancel",
    // Written ahead: a call may hold the export's lock and its temp file (the ledger records both before the start).
    resources: ["lock", "temp_file"],
    input: z.object({ rows: z.number().int().min(1).max(100_000), rowMs: z.number().int().min(1).optional() }),
    async run(input, ctx) {
      // Starting the export takes the service's resources (a lock, a file): it passes the checkpoint first, so that a
      // worker that wakes after the Stop — or after its lease was taken over — starts nothing (found by the
      // stop-conformance kit: "a stale worker wakes after the Stop"). With the call's signal, too.
      await ctx.checkpoint();
      const start = () => call<Export>("POST", "/reports/exports", { body: { idempotencyKey: ctx.idempotencyKey, ...input }, signal: ctx.signal });
      // A start whose answer was lost (a timeout, a dropped connection) may have started the export anyway: ask
      // again with the same idempotency key — the service answers with the export it has, or starts it once. Only
      // a failed second ask ends the step as failed (a wrong "no effect" if the first ask did start it — rarer).
      const started = await start().catch((error) => {
        if (error instanceof ServiceError || ctx.signal.aborted) throw error;
        return start();
      });
      await ctx.holdResource("lock", started.exportId);
      if (started.tempFile) await ctx.holdResource("temp_file", started.tempFile);
      for (;;) {
        // The service is the truth: after a Stop keep asking until it says the export stopped (or finished anyway).
        const current = await call<Export>("GET", `/reports/exports/${started.exportId}`);
        if (current.status === "completed") {
          if (!current.lockHeld) await ctx.releaseResource("lock", started.exportId);
          if (!current.tempFile && started.tempFile) await ctx.releaseResource("temp_file", started.tempFile);
          return { exportId: current.exportId, rows: current.rows };
        }
        if (current.status === "cancelled") {
          await ctx.reportPartial({ exportId: current.exportId, rows: current.rows }, { complete: true }); // a complete prefix of whole rows
          throw new StoppedError(`the service confirmed the export stopped after ${current.rowsWritten} of ${current.rowsTotal} rows`);
        }
        if (ctx.signal.aborted) await call("POST", `/reports/exports/${started.exportId}/cancel`).catch(() => {});
        else await ctx.reportProgress({ done: current.rowsWritten, total: current.rowsTotal, unit: "rows" });
        await new Promise((r) => setTimeout(r, options.pollMs ?? 50));
      }
    },
    async cancel(ref) {
      const found = await lookup<Export>("/reports/exports", ref);
      if (found) await call("POST", `/reports/exports/${found.exportId}/cancel`);
      else await fence("reports", ref); // not started (yet): a start still on its way is refused — it will take nothing
    },
    async inspect(ref) {
      try {
        const found = await lookup<Export>("/reports/exports", ref);
        if (!found) return { status: "not_committed", holds: [] };
        // What the service holds for this call now (written ahead: the lock and the temp file, by their handles).
        const holds = [
          ...(found.lockHeld ? [{ type: "lock", handle: found.exportId }] : []),
          ...(found.tempFile ? [{ type: "temp_file", handle: found.tempFile }] : []),
        ];
        if (found.status === "running") return { status: "running", holds };
        if (found.status === "completed") return { status: "committed", result: { exportId: found.exportId, rows: found.rows }, holds };
        return { status: "not_committed", partialResult: { exportId: found.exportId, rows: found.rows }, partialComplete: true, holds };
      } catch (error) {
        return unknown(error);
      }
    },
    async cleanup(resource) {
      const exportId = resource.type === "lock" ? resource.handle : /stopline-demo-(exp_[\w-]+)\.csv$/.exec(resource.handle)?.[1];
      if (exportId) await call("POST", `/reports/exports/${exportId}/release`);
    },
    async verifyReleased(resource) {
      const exportId = resource.type === "lock" ? resource.handle : /stopline-demo-(exp_[\w-]+)\.csv$/.exec(resource.handle)?.[1];
      if (!exportId) return false;
      const current = await call<Export>("GET", `/reports/exports/${exportId}`);
      return resource.type === "lock" ? !current.lockHeld : current.tempFile === null;
    },
  };

  const generate: ToolDefinition<{ prompt: string; words?: number; wordMs?: number }> = {
    name: "inference.generate",
    kind: "model_request",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    input: z.object({ prompt: z.string().min(1), words: z.number().int().optional(), wordMs: z.number().int().optional() }),
    async run(input, ctx) {
      let res: Response;
      try {
        res = await fetch(`${base}/inference/generate`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...input, idempotencyKey: ctx.idempotencyKey }),
          signal: ctx.signal,
        });
      } catch (error) {
        if (!ctx.signal.aborted) throw error;
        // The Stop aborted the request before its answer's headers were read: the service may have received it and
        // even finished a short reply (crash mode, seed 1205 #53). Ask by the call's key before calling it stopped.
        const finished = await finishedReply(`${base}/inference/generations?key=${encodeURIComponent(ctx.idempotencyKey)}`);
        if (finished !== null) return { text: finished };
        throw error;
      }
      if (!res.ok || !res.body) throw new ServiceError(res.status, `generate → ${res.status}`);
      const generationId = res.headers.get("x-generation-id");
      let text = "";
      try {
        for await (const chunk of res.body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)) text += chunk;
      } catch (error) {
        if (!ctx.signal.aborted) throw error;
        // The Stop may have cut the stream after the service had sent its last word: then the reply was complete at
        // the service, and calling it "unfinished" would be untrue (found by the random conformance mode). Ask.
        const finished = generationId ? await finishedReply(`${base}/inference/generations/${generationId}`) : null;
        if (finished !== null) return { text: finished };
        if (text) await ctx.reportPartial({ text }, { complete: false }); // half a sentence is not a valid answer
        throw error;
      }
      return { text: text.trim() };
    },
    // What became of a call's generation, by its key: asked when the call's worker died mid-stream (lease recovery
    // leaves such a call uncertain): a reply that finished at the service is not "stopped" (crash mode, seed 1919 #2).
    async inspect(ref: CallRef): Promise<InspectOutcome> {
      const res = await fetch(`${base}/inference/generations?key=${encodeURIComponent(ref.idempotencyKey)}`);
      if (res.status === 404) return { status: "not_committed" };
      if (!res.ok) return { status: "unknown", reason: `inference answered ${res.status}` };
      const g = (await res.json()) as { id: string; state: string; text: string | null };
      if (g.state === "running") return { status: "running" };
      if (g.state === "completed") return { status: "committed", result: { text: g.text }, description: `generation ${g.id} finished at the service` };
      return { status: "not_committed" };
    },
  };

  return [checkStock, createOrder, createRecord, sendEmail, exportReport, generate] as ToolDefinition[];
}

/**
 * The complete reply of a generation the caller stopped reading (asked by its id, or by the call's key when the
 * answer's headers never arrived), or null when the service stopped it, never had it (or cannot say
 * within 10 s): the service notices a closed stream within one word's time, so "running" does not last — but on a
 * loaded machine that time stretches, and an answer given up on too soon called a finished reply "unfinished"
 * (random conformance with crashes, seed 31 #22). A failed request is asked again; only a 404 is an answer.
 */
async function finishedReply(url: string): Promise<string | null> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const res = await fetch(url).catch(() => null);
    if (res?.status === 404) return null;
    if (!res?.ok) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const g = (await res.json()) as { state: string; text: string | null };
    if (g.state !== "running") return g.state === "completed" ? g.text : null;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

const money = (cents: number) => `€${(cents / 100).toFixed(2)}`;
const describeItems = (items: { sku: string; quantity: number }[]) => items.map((i) => `${i.quantity} × ${i.sku}`).join(", ");
