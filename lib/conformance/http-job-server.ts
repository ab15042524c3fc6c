import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small, real HTTP job service shaped like OpenAI's background responses — the AUTHORITATIVE record of what
 * each job did — for the HTTP job adapter's tests (test/lib/tools/adapters/http-job.int.test.ts).
 *
 *   POST /jobs {steps, stepMs}  (Idempotency-Key header)  → 200 {id, status: "queued"}  (same key → the same job)
 *   GET  /jobs/{id}                                      → 200 the job | 404
 *   GET  /jobs?idempotency_key=…                         → 200 the job | 404
 *   POST /jobs/{id}/cancel                               → depends on `cancelMode` (below)
 *
 * A job goes queued → in_progress → one output row per step → completed. Switches (settable any time):
 * - `cancelMode: "honour"` — the job stops: `cancelled`, keeping the rows written so far as `output`
 *   when `keepPartialOutput` is set;
 * - `"ack_but_complete"` — the cancel is acknowledged (200, the document says `cancelled`) but the job keeps
 *   running and completes `completeAfterCancelMs` later (0: at once) — a cancelled response can still complete;
 * - `"unavailable"` — the cancel endpoint answers 503 and nothing changes.
 * Every request and every state change goes to the witness log.
 */

export type CancelMode = "honour" | "ack_but_complete" | "unavailable";

export interface Job {
  id: string;
  idempotencyKey: string | null;
  status: "queued" | "in_progress" | "completed" | "failed" | "cancelled" | "incomplete";
  steps: number;
  stepMs: number;
  output: string[];
  createdAt: number;
}

export interface Witness {
  at: number;
  what: "request" | "job.started" | "job.step" | "job.completed" | "job.cancelled" | "cancel.acknowledged_only" | "cancel.refused";
  jobId: string | null;
  detail: string;
}

export interface JobServer {
  readonly url: string;
  cancelMode: CancelMode;
  completeAfterCancelMs: number;
  keepPartialOutput: boolean;
  readonly witness: readonly Witness[];
  job(id: string): Job | undefined;
  jobs(): Job[];
  count(what: Witness["what"], jobId?: string): number;
  /** How many requests arrived exactly as `METHOD /path` (query string ignored), e.g. `POST /jobs/job_1/cancel`. */
  requests(request: string): number;
  transcript(): string;
  close(): Promise<void>;
}

export async function startJobServer(initial: Partial<Pick<JobServer, "cancelMode" | "completeAfterCancelMs" | "keepPartialOutput">> = {}): Promise<JobServer> {
  const jobs = new Map<string, Job>();
  const byKey = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  const witness: Witness[] = [];
  let next = 1;
  const t0 = Date.now();
  const note = (what: Witness["what"], jobId: string | null, detail = "") => witness.push({ at: Date.now(), what, jobId, detail });
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  function advance(job: Job) {
    if (job.status !== "queued" && job.status !== "in_progress") return;
    job.status = "in_progress";
    job.output.push(`row ${job.output.length + 1}`);
    note("job.step", job.id, `${job.output.length}/${job.steps}`);
    if (job.output.length >= job.steps) {
      job.status = "completed";
      note("job.completed", job.id);
      return;
    }
    later(job.stepMs, () => advance(job));
  }

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const doc = (job: Job, override: Partial<Job> = {}) => {
    const view = { ...job, ...override };
    return {
      id: view.id,
      object: "job",
      status: view.status,
      output: view.status === "completed" || self.keepPartialOutput ? view.output : [],
      created_at: view.createdAt,
    };
  };
  const readBody = async (req: IncomingMessage) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  };

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const path = url.pathname.split("/").filter(Boolean);
      note("request", path[1] ?? null, `${req.method} ${url.pathname}${url.search}`);
      if (path[0] !== "jobs") return send(res, 404, { error: "not found" });

      if (req.method === "POST" && path.length === 1) {
        const body = await readBody(req);
        const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
        const existing = key ? byKey.get(key) : undefined;
        if (existing) return send(res, 200, doc(jobs.get(existing)!));
        const job: Job = {
          id: `job_${next++}`,
          idempotencyKey: key,
          status: "queued",
          output: [],
          createdAt: Date.now(),
          steps: Number(body.steps ?? 1_000),
          stepMs: Number(body.stepMs ?? 20),
        };
        jobs.set(job.id, job);
        if (key) byKey.set(key, job.id);
        note("job.started", job.id, `steps=${job.steps} stepMs=${job.stepMs}`);
        later(job.stepMs, () => advance(job));
        return send(res, 200, doc(job));
      }
      if (req.method === "GET" && path.length === 1) {
        const id = byKey.get(url.searchParams.get("idempotency_key") ?? "");
        return id ? send(res, 200, doc(jobs.get(id)!)) : send(res, 404, { error: "no job with this idempotency key" });
      }
      const job = jobs.get(path[1] ?? "");
      if (!job) return send(res, 404, { error: `no job ${path[1]}` });
      if (req.method === "GET" && path.length === 2) return send(res, 200, doc(job));

      if (req.method === "POST" && path[2] === "cancel") {
        if (self.cancelMode === "unavailable") {
          note("cancel.refused", job.id, "503");
          return send(res, 503, { error: "cancellation is temporarily unavailable" });
        }
        if (job.status !== "queued" && job.status !== "in_progress") return send(res, 200, doc(job)); // repeatable: the final document
        if (self.cancelMode === "honour") {
          job.status = "cancelled";
          note("job.cancelled", job.id, `after ${job.output.length}/${job.steps} rows`);
          return send(res, 200, doc(job));
        }
        // ack_but_complete: the answer says "cancelled"; the job runs to completion regardless
        note("cancel.acknowledged_only", job.id, `answered "cancelled"; completing in ${self.completeAfterCancelMs} ms`);
        const finish = () => {
          if (job.status !== "queued" && job.status !== "in_progress") return;
          while (job.output.length < job.steps) job.output.push(`row ${job.output.length + 1}`);
          job.status = "completed";
          note("job.completed", job.id, "despite the acknowledged cancel");
        };
        const answer = doc(job, { status: "cancelled" });
        if (self.completeAfterCancelMs <= 0) finish();
        else later(self.completeAfterCancelMs, finish);
        return send(res, 200, answer);
      }
      return send(res, 405, { error: "method not allowed" });
    } catch (error) {
      if (!res.headersSent) send(res, 500, { error: (error as Error).message });
    }
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const self: JobServer = {
    url: `http://127.0.0.1:${port}`,
    cancelMode: initial.cancelMode ?? "honour",
    completeAfterCancelMs: initial.completeAfterCancelMs ?? 0,
    keepPartialOutput: initial.keepPartialOutput ?? false,
    witness,
    job: (id) => jobs.get(id),
    jobs: () => [...jobs.values()],
    count: (what, jobId) => witness.filter((w) => w.what === what && (jobId === undefined || w.jobId === jobId)).length,
    requests: (request) => witness.filter((w) => w.what === "request" && w.detail.split("?")[0] === request).length,
    transcript: () => witness.map((w) => `+${String(w.at - t0).padStart(5)}ms ${w.what} ${w.jobId ?? "-"} ${w.detail}`).join("\n"),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return self;
}
