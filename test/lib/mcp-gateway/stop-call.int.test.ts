import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { settleStoppedCall } from "../../../lib/mcp-gateway/stop-call";
import type { InspectOutcome, ToolDefinition } from "../../../lib/tools/contract";

// A call stopped on its own (the MCP client's cancel) is settled by asking its server. A server that never answers
// must not hold the call `cancelling` — and the client's request with it — for the SDK's request timeout (60 s, each
// of five asks): each ask is bounded, and no answer reads as what it is: the outcome is unknown, a person is asked.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

function tool(inspect: () => Promise<InspectOutcome>): ToolDefinition {
  return {
    name: "mcp:orders.place_order",
    kind: "external_action",
    risk: "high",
    commitsEffect: true,
    mechanism: "abort_signal",
    run: async () => null,
    inspect,
  } as ToolDefinition;
}

async function stoppedCall(n: string) {
  const task = await createTask(t.database, { title: `mcp session ${n}`, ownerId: "alice" }, "agent:mcp");
  const item = await t.database.prisma.workItem.create({
    data: {
      taskId: task.id,
      kind: "external_action",
      toolName: "mcp:orders.place_order",
      correlationId: `call-${n}`,
      idempotencyKey: `call-${n}:key`,
      status: "cancelling",
      preparedIntentVersion: 1,
      mechanism: "abort_signal",
      commitsEffect: true,
    },
  });
  return { task, item };
}

describe("settling a call the MCP client cancelled", () => {
  it("a server that never answers the inspect: uncertain within the bound (not 5 × 60 s), saying no answer came, and a person is asked", async () => {
    const { task, item } = await stoppedCall("hangs");
    let asked = 0;
    const hangs = tool(() => {
      asked++;
      return new Promise<InspectOutcome>(() => {});
    });

    const started = performance.now();
    const to = await settleStoppedCall(t.database, hangs, item.id, { inspectWithinMs: 300 });
    const tookMs = performance.now() - started;

    expect(to).toBe("uncertain");
    expect(asked).toBe(1); // no answer is not "still running": it is not asked four more times
    expect(tookMs).toBeLessThan(3_000);
    const after = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(after.status).toBe("uncertain");
    expect(after.reconcileDeadline).not.toBeNull();
    const event = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { workItemId: item.id, type: LedgerEvent.workItemUncertain } });
    expect(event.reason).toBe("the server gave no answer about the call within 300 ms (cancel sent, not confirmed)");
    const reviews = await t.database.prisma.reviewItem.findMany({ where: { taskId: task.id } });
    expect(reviews.map((r) => [r.kind, r.status])).toEqual([["resolve_uncertain", "open"]]);
    expect(reviews[0].subject).toContain("within 300 ms");
  });

  it("a server that answers with an error is told apart from one that does not answer: 'inspect failed' with its message", async () => {
    const { item } = await stoppedCall("refuses");
    const to = await settleStoppedCall(
      t.database,
      tool(async () => {
        throw new Error("tasks/get answered 503");
      }),
      item.id,
      { inspectWithinMs: 300 },
    );
    expect(to).toBe("uncertain");
    const event = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { workItemId: item.id, type: LedgerEvent.workItemUncertain } });
    expect(event.reason).toBe("inspect failed: tasks/get answered 503");
  });

  it("a server that answers in time that the call did not take effect: cancelled, nobody asked", async () => {
    const { task, item } = await stoppedCall("honoured");
    const to = await settleStoppedCall(
      t.database,
      tool(async () => ({ status: "not_committed" })),
      item.id,
      { inspectWithinMs: 300 },
    );
    expect(to).toBe("cancelled");
    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe("cancelled");
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: task.id } })).toBe(0);
  });
});
