import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { call } from "../../support/api-client";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { readEventStream, type SseMessage } from "../../../lib/events/read-sse";

let t: TestDatabase;
let token: string;
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  token = (await createApiToken(t.database, { name: "reader", role: "agent" })).token;
});
afterAll(async () => t?.drop());

/** Opens a stream and collects `count` ledger events (skipping comments), then disconnects. */
async function collect(url: string, until: number | ((m: SseMessage) => boolean), headers: Record<string, string> = {}, timeoutMs = 10_000) {
  const abort = new AbortController();
  const res = await call("GET", url, { token, headers, signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
  const got: SseMessage[] = [];
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    for await (const m of readEventStream(res.body!)) {
      if (m.event !== "ledger") continue;
      got.push(m);
      if (typeof until === "number" ? got.length >= until : until(m)) break;
    }
  } catch {
    /* aborted by the timer: return what arrived */
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return got;
}

describe("server-sent ledger events", () => {
  it("Last-Event-ID replay: disconnect, write more events, reconnect, receive exactly the missed ones in order", async () => {
    const task = await createTask(t.database, { title: "replay", ownerId: "o" }, "agent:t");
    for (let i = 0; i < 3; i++)
      await scheduleWorkItem(
        t.database,
        { taskId: task.id, kind: "local_worker", toolName: `step-${i}`, mechanism: "abort_signal", intentVersion: 1 },
        "agent:t",
      );
    const first = await collect(`/api/tasks/${task.id}/events`, 4);
    expect(first.map((m) => JSON.parse(m.data).type)).toEqual(["task.created", "work_item.scheduled", "work_item.scheduled", "work_item.scheduled"]);
    const lastSeen = first.at(-1)!.id!;

    // while disconnected: two more items and the Stop
    for (let i = 3; i < 5; i++)
      await scheduleWorkItem(
        t.database,
        { taskId: task.id, kind: "local_worker", toolName: `step-${i}`, mechanism: "abort_signal", intentVersion: 1 },
        "agent:t",
      );
    await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "agent:t" });

    const missed = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, seq: { gt: Number(lastSeen) } }, orderBy: { seq: "asc" } });
    expect(missed).toHaveLength(3);
    const resumed = await collect(`/api/tasks/${task.id}/events`, 3, { "last-event-id": lastSeen });
    expect(resumed.map((m) => Number(m.id))).toEqual(missed.map((e) => e.seq));
    // exactly once: nothing more arrives after the missed ones
    const extra = await collect(`/api/tasks/${task.id}/events`, 1, { "last-event-id": resumed.at(-1)!.id! }, 1_500);
    expect(extra).toEqual([]);
    // the query parameter works the same way
    const viaQuery = await collect(`/api/tasks/${task.id}/events?lastEventId=${lastSeen}`, 3);
    expect(viaQuery.map((m) => m.id)).toEqual(resumed.map((m) => m.id));
  });

  it("a live subscriber receives new events as they are committed, each id being the ledger sequence", async () => {
    const task = await createTask(t.database, { title: "live", ownerId: "o" }, "agent:t");
    const pending = collect(`/api/tasks/${task.id}/events`, 2);
    await new Promise((r) => setTimeout(r, 200));
    await requestCancellation(t.database, { taskId: task.id, reason: "stop", actor: "agent:t" });
    const got = await pending;
    const rows = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id }, orderBy: { seq: "asc" } });
    expect(got.map((m) => Number(m.id))).toEqual(rows.map((r) => r.seq));
    expect(JSON.parse(got[1].data)).toMatchObject({ type: "task.cancel_requested", toState: "cancel_requested" });
  });

  it("events committed by another process reach subscribers (the events table is the source, not memory)", async () => {
    const task = await createTask(t.database, { title: "cross-process", ownerId: "o" }, "agent:t");
    const isTheStop = (m: SseMessage) => JSON.parse(m.data).taskId === task.id && JSON.parse(m.data).type === "task.cancel_requested";
    const pending = collect(`/api/events?lastEventId=0`, isTheStop, {}, 15_000);
    // a separate OS process records the Stop on the same database
    const script = path.resolve(import.meta.dirname, "../../../test/support/cancel-in-process.ts");
    await new Promise<void>((resolve, reject) => {
      // vitest's fork workers carry NODE_CHANNEL_FD; a grandchild inheriting it waits on an IPC channel that is not there
      const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
      const child = spawn(process.execPath, ["--import", "tsx", script, t.url, task.id], { stdio: ["ignore", "inherit", "inherit"], env });
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`))));
    });
    const got = await pending;
    const types = got
      .map((m) => JSON.parse(m.data))
      .filter((e) => e.taskId === task.id)
      .map((e) => e.type);
    expect(types).toContain("task.cancel_requested");
  });

  it("sends a comment heartbeat when nothing happens", async () => {
    process.env.STOPLINE_SSE_HEARTBEAT_MS = "200";
    try {
      const task = await createTask(t.database, { title: "quiet", ownerId: "o" }, "agent:t");
      const abort = new AbortController();
      const res = await call("GET", `/api/tasks/${task.id}/events`, { token, signal: abort.signal });
      const reader = res.body!.getReader();
      let text = "";
      const until = Date.now() + 3_000;
      while (!text.includes(": heartbeat") && Date.now() < until) text += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      expect(text).toContain(": heartbeat");
    } finally {
      delete process.env.STOPLINE_SSE_HEARTBEAT_MS;
    }
  });
});
