import { describe, expect, it } from "vitest";
import { Coalescer, oncePerStatement } from "../../../lib/db/coalesce";

// Reads of concurrent requests share a statement; none is answered by a read older than itself.

/** A "database" whose reads the test answers by hand: each read is recorded with its keys. */
function manualReads() {
  const reads: { keys: string[]; answer: (values: Record<string, number>) => void; fail: (error: Error) => void }[] = [];
  const coalescer = new Coalescer<string, number>(
    (keys) =>
      new Promise((resolve, reject) => {
        reads.push({ keys, answer: (values) => resolve(new Map(Object.entries(values))), fail: reject });
      }),
  );
  return { coalescer, reads };
}
const turn = () => new Promise((r) => setImmediate(r));

describe("Coalescer", () => {
  it("a lone key goes out on the next turn, alone — nothing waits for a batch to fill", async () => {
    const { coalescer, reads } = manualReads();
    const a = coalescer.load("a");
    await turn();
    expect(reads.map((r) => r.keys)).toEqual([["a"]]);
    reads[0].answer({ a: 1 });
    expect(await a).toBe(1);
  });

  it("keys asked for while a read is in flight go out together as the next read, each distinct key once", async () => {
    const { coalescer, reads } = manualReads();
    const first = coalescer.load("a");
    await turn();
    const waiting = [coalescer.load("b"), coalescer.load("c"), coalescer.load("b")];
    await turn();
    expect(reads).toHaveLength(1); // one statement in flight at a time
    reads[0].answer({ a: 1 });
    expect(await first).toBe(1);
    await turn();
    expect(reads.map((r) => r.keys)).toEqual([["a"], ["b", "c"]]);
    reads[1].answer({ b: 2 }); // c: no row
    expect(await Promise.all(waiting)).toEqual([2, undefined, 2]);
  });

  it("a key asked for again while its read is in flight is read anew: an answer is never older than its request", async () => {
    const { coalescer, reads } = manualReads();
    const before = coalescer.load("token");
    await turn();
    const after = coalescer.load("token"); // e.g. asked after the token was revoked, while the earlier read is in flight
    reads[0].answer({ token: 1 });
    expect(await before).toBe(1);
    await turn();
    expect(reads).toHaveLength(2);
    reads[1].answer({}); // revoked meanwhile: no row
    expect(await after).toBeUndefined();
  });

  it("a read that fails fails every key in it, and the next read goes on", async () => {
    const { coalescer, reads } = manualReads();
    const first = coalescer.load("a");
    await turn();
    const [x, y] = [coalescer.load("x"), coalescer.load("y")];
    reads[0].fail(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    await turn();
    reads[1].answer({ x: 7, y: 8 });
    expect([await x, await y]).toEqual([7, 8]);
  });

  it("at most maxBatch keys per read; the rest go in the next", async () => {
    const reads: string[][] = [];
    const coalescer = new Coalescer<string, string>(
      async (keys) => {
        reads.push(keys);
        return new Map(keys.map((k) => [k, k.toUpperCase()]));
      },
      { maxBatch: 2, maxInFlight: 2 },
    );
    const answers = await Promise.all(["a", "b", "c", "d", "e"].map((k) => coalescer.load(k)));
    expect(answers).toEqual(["A", "B", "C", "D", "E"]);
    expect(reads).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });
});

describe("a shared write's batch, each task at most once per statement", () => {
  it("names each task once per statement, in task id order; a repeat goes in the next statement, after the first's answer", async () => {
    const statements: string[][] = [];
    const requests = [
      { taskId: "c", n: 1 },
      { taskId: "a", n: 2 },
      { taskId: "c", n: 3 },
      { taskId: "b", n: 4 },
      { taskId: "c", n: 5 },
    ];
    const answers = await oncePerStatement(requests, async (once) => {
      statements.push(once.map((r) => `${r.taskId}${r.n}`));
      return once.map((r) => r.n * 10);
    });
    expect(statements).toEqual([["a2", "b4", "c1"], ["c3"], ["c5"]]);
    expect(requests.map((r) => answers.get(r))).toEqual([10, 20, 30, 40, 50]);
  });
});
