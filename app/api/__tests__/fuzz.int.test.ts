import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contract, type RouteContract } from "@/lib/api/contract";
import { seedDemoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { openReviewItem } from "@/lib/cancellation/steps/7-review";
import { startDemoServer, type DemoServer } from "@/lib/demo/server";
import { SERVICES } from "@/lib/demo/store";
import { claimWorkItem } from "@/lib/ledger/claim-work-item";
import { createTask } from "@/lib/ledger/create-task";
import { scheduleWorkItem } from "@/lib/ledger/schedule-work-item";
import { call } from "@/test/support/api-client";
import { createTestDatabase, testEngine, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * Issue 11: a property test of every POST and PATCH route of the contract (fast-check). Whatever the body —
 * arbitrary JSON, a valid body with one field replaced by an edge value (NUL bytes, lone surrogates, huge or
 * negative numbers, deep nesting, wrong types), or text that is not JSON — and whatever the path id, the answer
 * is 2xx or 4xx, never 5xx; and a 4xx wrote nothing, except the traces the ledger keeps on purpose (a stale
 * lease token or a refused checkpoint is recorded as such, a failed sign-in is counted; see ALLOWED_TRACES).
 *
 * Runs on both databases; FUZZ_RUNS (default 15 per route) sets how hard. Failures print fast-check's
 * counterexample and seed (replay with FUZZ_SEED).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
let t: TestDatabase;
let demo: DemoServer;
let admin = "";
const ids: Record<string, string[]> = {};
const previousDemoUrl = process.env.STOPLINE_DEMO_URL;

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  admin = (await createApiToken(t.database, { name: "fuzz-admin", role: "admin" })).token;
  demo = await startDemoServer({ file: ":memory:" });
  process.env.STOPLINE_DEMO_URL = demo.url;
  // Real objects for the path parameters (besides made-up ids).
  const task = await createTask(t.database, { title: "fuzz", ownerId: "fuzz-admin", conversationId: "conv-fuzz" }, "agent:fuzz");
  await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "local_worker", toolName: "tool.fuzz", mechanism: "abort_signal", intentVersion: 1 },
    "agent:fuzz",
  );
  const running = (await claimWorkItem(t.database, { workerId: "w-fuzz", toolNames: ["tool.fuzz"] }))!;
  const queued = await scheduleWorkItem(
    t.database,
    { taskId: task.id, kind: "external_action", toolName: "shop.create_order", mechanism: "rollback", intentVersion: 1, commitsEffect: true },
    "agent:fuzz",
  );
  const review = (await openReviewItem(t.database, { taskId: task.id, kind: "resolve_uncertain", risk: "low", subject: "fuzz" }))!;
  await seedDemoAccounts(t.database);
  const accounts = await t.database.prisma.user.findMany({ select: { id: true } });
  const channel = await t.database.prisma.escalationChannel.create({
    data: { name: "fuzz", kind: "webhook", url: "https://hooks.example.com/fuzz", secret: "whsec_fuzz_secret_0001", active: true },
  });
  ids.taskId = [task.id];
  ids.id = [running.id, queued.id, review.id, ...accounts.map((a) => a.id), channel.id];
  ids.conversationId = ["conv-fuzz", "conv-new"];
  ids.service = [...SERVICES];
});
afterAll(async () => {
  if (previousDemoUrl === undefined) delete process.env.STOPLINE_DEMO_URL;
  else process.env.STOPLINE_DEMO_URL = previousDemoUrl;
  await demo?.close();
  await t?.drop();
});

/** Valid bodies to start from (one field is then replaced by an edge value). */
const EXAMPLES: Partial<Record<keyof typeof contract, Record<string, unknown>>> = {
  createTask: { title: "order two chairs", conversationId: "conv-fuzz", riskLevel: "high", ownerId: "someone" },
  scheduleWorkItem: {
    kind: "remote_tool",
    toolName: "tool.fuzz",
    mechanism: "abort_signal",
    intentVersion: 1,
    input: { a: 1 },
    parentWorkItemId: "no-such-item",
    proposalVersion: 0,
    idempotencyKey: "k-1",
  },
  cancelTask: { reason: "fuzz" },
  claim: { workerId: "w-fuzz", toolNames: ["tool.nothing"], leaseMs: 5_000 },
  heartbeat: { leaseToken: "lease-guess", leaseMs: 5_000 },
  checkpoint: { leaseToken: "lease-guess", intentVersion: 1, proposalVersion: null },
  submitted: { leaseToken: "lease-guess", operationId: "op-1", reversible: true, description: "x" },
  complete: { leaseToken: "lease-guess", outcome: "completed", result: { ok: true } },
  reportPartial: { leaseToken: "lease-guess", result: [1, 2], complete: true },
  reportProgress: { leaseToken: "lease-guess", done: 1, total: 10, unit: "rows", message: "going" },
  markUncertain: { leaseToken: "lease-guess", reason: "timeout" },
  holdResource: { leaseToken: "lease-guess", type: "lock", handle: "l-1" },
  releaseResource: { leaseToken: "lease-guess", type: "lock", handle: "l-1" },
  decideReviewItem: { decision: "resolve", reason: "checked", evidence: "looked" },
  sendMessage: { text: "hello" },
  editProposal: { items: [{ sku: "chair", quantity: 2 }], expectedVersion: 1 },
  confirmProposal: { proposalVersion: 1 },
  createToken: { name: "fuzz-token", role: "agent" },
  createAccount: { name: "Fuzz", email: "fuzz@example.com", role: "user", password: "long enough password" },
  changeAccountRole: { role: "support" },
  createSession: { token: "stl_not_a_real_token" },
  createEscalationChannel: { name: "hook", kind: "webhook", url: "https://hooks.example.com/x", secret: "whsec_fuzz_secret_0002" },
  setDemoFaults: { latencyMs: 0, cancelUnavailable: true },
};

const edgeString = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00y",
  "🪑",
  "%C0%AE",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "x".repeat(10_001),
  "null",
  "0",
);
const edgeNumber = fc.constantFrom(0, -1, 1.5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e308, 2 ** 31, -(2 ** 31) - 1);
const deep = fc.integer({ min: 60, max: 200 }).map((n) => JSON.parse(`${"[".repeat(n)}1${"]".repeat(n)}`));
const edgeValue = fc.oneof(
  edgeString,
  edgeNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  deep,
  fc.string(),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A body: arbitrary JSON, a valid example with one field replaced or added, or text that is not JSON. */
function bodies(example: Record<string, unknown> | undefined) {
  const mutated = example
    ? fc.tuple(fc.constantFrom(...Object.keys(example), "unexpectedField"), edgeValue).map(([key, value]) => ({ body: { ...example, [key]: value } }))
    : fc.jsonValue({ maxDepth: 3 }).map((body) => ({ body }));
  return fc.oneof(
    { weight: 4, arbitrary: mutated },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((body) => ({ body })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((rawBody) => ({ rawBody })) },
    ...(example ? [{ weight: 1, arbitrary: fc.constant({ body: example }) }] : []),
  );
}

/** A path parameter: a real id of the right kind, another object's id, or a made-up one. */
const param = (name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(ids[name] ?? ids.id)) },
    { weight: 1, arbitrary: fc.constantFrom(...ids.id) },
    { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom("x", "\u00c0\u00ae", "a\u0000b", "null", "0", "-1", "z".repeat(199))) },
  );

/**
 * What a refused call records on purpose: the rejection of a stale lease token or a checkpoint, an approval
 * whose record moved (escalated), and — for a submission with a stale token — the side effect itself, as
 * unknown, so that reconciliation can ask about it (lib/ledger/record-submission.ts: the fact is never lost).
 */
const ALLOWED_TRACES = new Set(["lease.stale_token_rejected", "checkpoint.rejected", "review_item.escalated", "side_effect.recorded"]);

async function snapshot() {
  const p = t.database.prisma;
  const [seq, tasks, workItems, users, tokens, channels, sessions, buckets, resources] = await Promise.all([
    p.ledgerEvent.aggregate({ _max: { seq: true } }).then((a) => a._max.seq ?? 0),
    p.task.count(),
    p.workItem.count(),
    p.user.count(),
    p.apiToken.count(),
    p.escalationChannel.count(),
    p.consoleSession.count(),
    p.rateLimitBucket.count(),
    p.resource.count(),
  ]);
  return { seq, counts: { tasks, workItems, users, tokens, channels, sessions, resources }, buckets };
}

const routes = Object.entries(contract).filter(([, r]) => r.method === "POST" || r.method === "PATCH") as [keyof typeof contract, RouteContract][];

describe(`fuzz: every POST and PATCH route (${testEngine()})`, () => {
  it.each(routes)(
    "%s answers 2xx or 4xx, never 5xx, and a 4xx writes nothing",
    async (name, route) => {
      const paramNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const arbitrary = fc.record({
        params: fc.tuple(...paramNames.map(param)),
        payload: bodies(EXAMPLES[name]),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ params, payload }) => {
          let path = route.path;
          for (const [i, n] of paramNames.entries()) path = path.replace(`{${n}}`, encodeURIComponent(params[i] as string));
          const before = await snapshot();
          const res = await call(route.method as "POST" | "PATCH", path, {
            token: admin,
            ...payload,
            ...("rawBody" in payload ? { headers: { "content-type": "application/json" } } : {}),
          });
          const text = await res.text();
          if (name === "setDemoFaults")
            for (const s of SERVICES) await fetch(`${demo.url}/${s}/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
          expect(res.status, `${route.method} ${path} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
          if (res.status >= 400) {
            const after = await snapshot();
            expect(after.counts, `${route.method} ${path} → ${res.status} changed rows`).toEqual(before.counts);
            const events = await t.database.prisma.ledgerEvent.findMany({ where: { seq: { gt: before.seq } }, select: { type: true } });
            expect(
              events.map((e) => e.type).filter((type) => !ALLOWED_TRACES.has(type)),
              `${route.method} ${path} → ${res.status} appended events`,
            ).toEqual([]);
            if (name !== "createSession") expect(after.buckets).toBe(before.buckets);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    120_000,
  );
});
