import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootDemoWorld, newTask, scheduleTool, snapshot, stop, taskRow, until, type DemoWorld } from "../../support/demo-world";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import type { InspectOutcome, ToolDefinition } from "../../../lib/tools/contract";
import { getTaskDetail } from "../../../lib/ledger/queries";
import { RESOURCE_WORDS, resourceOutcomeOf } from "../../../lib/outcomes";

/**
 * The verification gate's first step (resolve-intents.ts) when the service cannot say what a call holds: the call's
 * answer never arrived (the Stop cut it), and its inspect() answers `unknown`. The intent must not vanish: it is
 * `unresolved`, an ORPHANED resource named by the call's key stands for it with a review item for a person, and the
 * summary is not a clean CANCELLED — it names the resource.
 */
let t: TestDatabase;
let world: DemoWorld;
let answer: InspectOutcome = { status: "unknown", reason: "the service is down" };

const silentTool: ToolDefinition<unknown, unknown> = {
  name: "test.holds_a_lock",
  kind: "remote_tool",
  risk: "low",
  commitsEffect: false,
  mechanism: "abort_signal",
  resources: ["lock"],
  inspect: async () => answer,
  cleanup: async () => {},
  verifyReleased: async () => false,
  // Sends its start and waits for an answer that never comes: the Stop cuts it.
  run: (_input, ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })),
};

beforeAll(async () => {
  t = await createTestDatabase();
  world = await bootDemoWorld(t.database, { engine: { verifyDelayMs: 10, settleTimeoutMs: 2_000 }, maintenanceMs: 100 });
  world.registry.register(silentTool);
});
afterAll(async () => {
  await world?.close();
  await t?.drop();
});

async function stopWhileRunning(title: string) {
  const task = await newTask(world, title, "low");
  const item = await scheduleTool(world, task.id, silentTool.name, {});
  await until("the intent written ahead", async () => (await t.database.prisma.resourceIntent.count({ where: { workItemId: item.id } })) === 1);
  await stop(world, task.id);
  await until(`task ${task.id} settled`, async () => (await taskRow(world, task.id)).settledAt !== null, 15_000);
  return { task, item, s: await snapshot(world, task.id) };
}

describe("resolving a written-ahead resource", () => {
  it("the service cannot say: unresolved, an orphaned resource named by the call's key, a review item — never a clean CANCELLED", async () => {
    answer = { status: "unknown", reason: "the service is down" };
    const { item, s } = await stopWhileRunning("lock, service cannot say");
    const intent = await t.database.prisma.resourceIntent.findFirstOrThrow({ where: { workItemId: item.id } });
    expect(intent.state).toBe("unresolved");
    expect(s.resources.map((r) => [r.type, r.handle, r.state, r.id === intent.resourceId])).toEqual([["lock", item.idempotencyKey, "orphaned", true]]);
    expect(s.reviews.filter((r) => r.kind === "orphaned_resource" && r.resourceId === intent.resourceId)).toHaveLength(1);
    expect(s.summary.status).not.toBe("CANCELLED");
    // Named by its call and kind as unconfirmed, its service could not say — not among the resources that "could not be released".
    expect(s.summary.orphaned_resources).toEqual([]);
    // No release was tried and the service may hold nothing: the person reads "may still be held", never "could not be
    // released" (random conformance, PostgreSQL seed 1207 #126: a false alarm the witness contradicted).
    expect(s.summary.user_message).toMatch(
      /One resource may still be held at a service, which could not say whether the step holds it; an operator has been asked to check\./,
    );
    expect(s.summary.user_message).not.toMatch(/could not be released/);
    expect(s.summary.unconfirmed_resources).toEqual([
      { tool_call_id: item.correlationId, tool_name: silentTool.name, type: "lock", outcome: "service_could_not_say" },
    ]);
    // The console's and the chat's detail read the same outcome for the resource.
    const detail = await getTaskDetail(t.database, item.taskId);
    expect(detail.resources.map((r) => [r.id, r.serviceCouldNotSay])).toEqual([[intent.resourceId, true]]);
    expect(RESOURCE_WORDS[resourceOutcomeOf(detail.resources[0], detail.workItems[0], true)].short).toBe("unconfirmed");
  });

  it("the service says the call holds nothing: not held, nothing to report", async () => {
    answer = { status: "not_committed", holds: [] };
    const { item, s } = await stopWhileRunning("lock, nothing held");
    expect((await t.database.prisma.resourceIntent.findFirstOrThrow({ where: { workItemId: item.id } })).state).toBe("not_held");
    expect(s.resources).toEqual([]);
    expect(s.summary.status).toBe("CANCELLED");
    expect(s.summary.orphaned_resources).toEqual([]);
  });
});
