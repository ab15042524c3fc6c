/**
 * The Stop preview never disagrees with what Stop then does (issue 13). For random ledgers — one task with 1–6
 * children of six tool shapes (every mechanism; reads, jobs, commitments with and without a compensation), each
 * left in a random state (queued, running, running with a partial result and progress, accepted by its service,
 * uncertain, completed with an effect, completed, failed) — the preview is computed, then Stop is pressed and the
 * engine's pass runs, with nothing changed in between. Checked:
 *  1. the preview wrote nothing (no event, no row version moved);
 *  2. the plan the engine recorded has exactly the preview's children and actions, in the same order;
 *  3. what each prediction says happened: "never starts" → removed from dispatch, never started; "cannot be
 *     stopped" → reported (a `notify` step); "stops/rolled back/cancelled at its service" → the matching stop step;
 *     "checked with the service" → reconciled, never re-sent; an effect "needs approval" → an approve-compensation
 *     review item for it; an effect "cannot be undone" → an orphaned-side-effect review item for it.
 * Reproduce: FC_SEED=<seed> [FC_RUNS=n] npx vitest run --project sqlite lib/cancellation/preview-stop.property
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { completeWorkItem } from "../../../lib/ledger/complete-work-item";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { markUncertain } from "../../../lib/ledger/mark-uncertain";
import { recordSubmission } from "../../../lib/ledger/record-submission";
import { reportPartial } from "../../../lib/ledger/report-partial";
import { reportProgress } from "../../../lib/ledger/report-progress";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { ReviewItemKind, WorkItemStatus } from "../../../lib/ledger/states";
import { PreviewKind } from "../../../lib/outcomes";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";
import { executeCancellation } from "../../../lib/cancellation/execute-cancellation";
import type { CancellationPlan } from "../../../lib/cancellation/plan";
import { previewStop } from "../../../lib/cancellation/preview-stop";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";

const SEED = Number(process.env.FC_SEED ?? 20_261_201);
const RUNS = Number(process.env.FC_RUNS ?? 30);
const actor = "agent:preview-property";
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

/** Services that answer at once: a cancel is acknowledged, an accepted action did not take effect. */
const quiet = { cancel: async () => {}, inspect: async () => ({ status: "not_committed" as const }) };
const compensate = async () => ({ status: "compensated" as const });
const TOOLS: Record<string, ToolDefinition> = {
  read: { name: "pv.read", kind: "remote_tool", risk: "low", commitsEffect: false, mechanism: "abort_signal", run: async () => null },
  job: { name: "pv.job", kind: "remote_tool", risk: "low", commitsEffect: false, mechanism: "provider_cancel", run: async () => null, ...quiet },
  none: { name: "pv.none", kind: "local_worker", risk: "low", commitsEffect: false, mechanism: "none", run: async () => null },
  order: {
    name: "pv.order",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "provider_cancel",
    run: async () => null,
    ...quiet,
    compensate,
    describeEffect: (e) => `order ${e.operationId}`,
  },
  undoable: {
    name: "pv.undoable",
    kind: "external_action",
    risk: "low",
    commitsEffect: true,
    mechanism: "rollback",
    run: async () => null,
    ...quiet,
    rollback: async () => {},
    compensate,
  },
  email: { name: "pv.email", kind: "external_action", risk: "low", commitsEffect: true, mechanism: "none", run: async () => null, inspect: quiet.inspect },
};
const registry = new ToolRegistry();
for (const tool of Object.values(TOOLS)) registry.register(tool);

const State = ["queued", "running", "partial", "submitted", "uncertain", "effect", "completed", "failed"] as const;
type State = (typeof State)[number];
const childArb = fc.record({
  tool: fc.constantFrom(...Object.keys(TOOLS)),
  state: fc.constantFrom(...State),
  reversible: fc.boolean(),
  done: fc.nat({ max: 5_000 }),
});

let n = 0;
/** Builds one child in the asked state through the ledger's own write paths (the worker protocol). */
async function build(taskId: string, c: { tool: string; state: State; reversible: boolean; done: number }) {
  const tool = TOOLS[c.tool];
  // Submission and effects only for tools that commit; the rest run instead.
  const state: State = !tool.commitsEffect && ["submitted", "uncertain", "effect"].includes(c.state) ? "running" : c.state;
  const item = await scheduleWorkItem(
    t.database,
    { taskId, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1 },
    actor,
  );
  if (state === "queued") return;
  const claimed = await claimWorkItem(t.database, { workerId: "w", toolNames: [tool.name], leaseMs: 600_000 });
  if (claimed?.id !== item.id) throw new Error("the claim took another child");
  const lease = { workItemId: item.id, leaseToken: claimed.leaseToken!, actor };
  if (state === "running") return;
  if (state === "partial") {
    await reportProgress(t.database, { ...lease, progress: { done: c.done, unit: "rows" } });
    await reportPartial(t.database, { ...lease, result: { rows: c.done }, complete: true });
    return;
  }
  if (state === "completed") return void (await completeWorkItem(t.database, { ...lease, outcome: "completed", result: "ok" }));
  if (state === "failed") return void (await completeWorkItem(t.database, { ...lease, outcome: "failed", error: "no" }));
  await checkpointWorkItem(t.database, lease);
  await recordSubmission(t.database, { ...lease, operationId: `op-${++n}-${item.id}`, reversible: c.reversible, description: `effect of ${tool.name}` });
  if (state === "uncertain") await markUncertain(t.database, { workItemId: item.id, leaseToken: lease.leaseToken, reason: "no answer", actor });
  if (state === "effect")
    await completeWorkItem(t.database, { ...lease, outcome: "completed", result: "done", externalRecordId: `rec-${n}`, externalVersion: "1" });
}

const fingerprint = async (taskId: string) => ({
  events: await t.database.prisma.ledgerEvent.count({ where: { taskId } }),
  rows: JSON.stringify(await t.database.prisma.workItem.findMany({ where: { taskId }, select: { id: true, rowVersion: true }, orderBy: { id: "asc" } })),
  task: (await t.database.prisma.task.findUniqueOrThrow({ where: { id: taskId } })).rowVersion,
});

/** What the engine's pass did to each child, from the ledger's step events. */
async function stepsOf(taskId: string): Promise<Map<string, string[]>> {
  const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId, type: LedgerEvent.cancellationStep }, orderBy: { seq: "asc" } });
  const out = new Map<string, string[]>();
  for (const e of events) {
    if (!e.workItemId) continue;
    const data = (typeof e.data === "string" ? JSON.parse(e.data) : e.data) as { action: string };
    out.set(e.workItemId, [...(out.get(e.workItemId) ?? []), data.action]);
  }
  return out;
}

describe("the Stop preview", () => {
  it("equals what Stop then does, for random ledgers (same children, same actions, each prediction borne out)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(childArb, { minLength: 1, maxLength: 6 }), async (children) => {
        const task = await createTask(t.database, { title: "preview property", ownerId: "alice" }, actor);
        // Queued children last: a claim takes the oldest queued child.
        for (const c of [...children.filter((c) => c.state !== "queued"), ...children.filter((c) => c.state === "queued")]) await build(task.id, c);

        const before = await fingerprint(task.id);
        const preview = await previewStop(t.database, registry, task.id);
        expect(await fingerprint(task.id), "the preview wrote nothing").toEqual(before);
        if (preview.state !== "would_stop") throw new Error(`unexpected preview state ${preview.state}`);

        await requestCancellation(t.database, { taskId: task.id, reason: "property", actor: "user:alice" });
        await executeCancellation(t.database, task.id, { registry, verifyDelayMs: 0, settleTimeoutMs: 0, cancelAttempts: 1, cancelBackoffMs: 0 });

        const after = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
        const plan = after.cancelPlan as unknown as CancellationPlan;
        const planned = preview.children.filter((c) => c.action !== null).map((c) => [c.work_item_id, c.action]);
        expect(
          plan.steps.map((s) => [s.tool_call_id, s.action]),
          "the recorded plan is the preview's",
        ).toEqual(planned);

        const items = new Map((await t.database.prisma.workItem.findMany({ where: { taskId: task.id } })).map((i) => [i.id, i]));
        const reviews = await t.database.prisma.reviewItem.findMany({ where: { taskId: task.id } });
        const steps = await stepsOf(task.id);
        for (const c of preview.children) {
          const item = items.get(c.work_item_id)!;
          const did = steps.get(item.id) ?? [];
          const label = `${c.tool_name} (${c.preview.kind}): ${c.preview.sentence}; steps ${did.join(",")}; now ${item.status}`;
          switch (c.preview.kind) {
            case PreviewKind.neverStarts:
              expect([item.status, item.startedAt], label).toEqual([WorkItemStatus.cancelled, null]);
              break;
            case PreviewKind.cannotStop:
              expect(did, label).toContain("notify");
              break;
            case PreviewKind.toldToStop:
            case PreviewKind.stopsKeepingPartial:
              expect(did, label).toContain(c.preview.kind === PreviewKind.toldToStop ? "abort" : "abort_await_partial");
              expect(item.status, label).toBe(WorkItemStatus.cancelling);
              break;
            case PreviewKind.serviceCancels:
              expect(did, label).toContain("provider_cancel");
              break;
            case PreviewKind.rolledBack:
              expect(did, label).toContain("rollback");
              break;
            case PreviewKind.askService: {
              // Reconciled by operation id (the quiet services say: not committed), never re-sent.
              expect(item.status, label).not.toBe(WorkItemStatus.running);
              const sent = await t.database.prisma.ledgerEvent.count({ where: { workItemId: item.id, type: LedgerEvent.workItemClaimed } });
              expect(sent, label).toBe(1);
              break;
            }
            case PreviewKind.effectNeedsApproval:
              expect(
                reviews.some((r) => r.workItemId === item.id && r.kind === ReviewItemKind.approveCompensation),
                label,
              ).toBe(true);
              break;
            case PreviewKind.effectFinal:
              expect(
                reviews.some((r) => r.workItemId === item.id && r.kind === ReviewItemKind.orphanedSideEffect),
                label,
              ).toBe(true);
              break;
          }
        }
        // And nothing the preview did not mention was acted on.
        const mentioned = new Set(preview.children.map((c) => c.work_item_id));
        for (const id of steps.keys()) expect(mentioned.has(id), `a step for ${items.get(id)?.toolName} that the preview did not mention`).toBe(true);
        for (const r of reviews) expect(r.workItemId && mentioned.has(r.workItemId), `a review item the preview did not mention: ${r.subject}`).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 90_000 },
    );
  }, 120_000);

  it("says so when there is nothing to stop, when Stop was already pressed, and when the task ended", async () => {
    const task = await createTask(t.database, { title: "idle", ownerId: "alice" }, actor);
    const idle = await previewStop(t.database, registry, task.id);
    expect(idle).toMatchObject({ state: "would_stop", children: [], headline: "Nothing is running: Stop ends this request and changes nothing." });
    await requestCancellation(t.database, { taskId: task.id, reason: "x", actor: "user:alice" });
    expect(await previewStop(t.database, registry, task.id)).toMatchObject({ state: "already_requested" });
    await expect(previewStop(t.database, registry, "no-such-task")).rejects.toMatchObject({ code: "not_found" });
  });
});
