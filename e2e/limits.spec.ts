import { expect, test } from "@playwright/test";
import { E2E_BASE_URL, E2E_BOOTSTRAP_TOKEN } from "./env";

/**
 * Issue 24's limits against the real server (`npm start`'s: route handlers from Next.js's bundle, event streams and
 * the API on the server's own lanes) — where a 429 thrown in one and mapped in the other was a 500, and a 20 MB
 * body reset the connection before the client could read the answer.
 */
const admin = { authorization: `Bearer ${E2E_BOOTSTRAP_TOKEN}`, "content-type": "application/json" };

async function token(role: "agent" | "worker"): Promise<string> {
  const res = await fetch(`${E2E_BASE_URL}/api/tokens`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ name: `limits-${role}-${Date.now()}`, role }),
  });
  expect(res.status).toBe(201);
  return (await res.json()).token;
}

test("150 event streams of one token at once: 32 open, 118 answered 429 with Retry-After and a JSON body — none a 500", async () => {
  const agent = await token("agent");
  const open = new AbortController();
  try {
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => fetch(`${E2E_BASE_URL}/api/events`, { headers: { authorization: `Bearer ${agent}` }, signal: open.signal })),
    );
    const count = (status: number) => answers.filter((r) => r.status === status).length;
    expect({ ok: count(200), limited: count(429), other: answers.length - count(200) - count(429) }).toEqual({ ok: 32, limited: 118, other: 0 });
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-type")).toMatch(/application\/json/);
    expect((await refused.json()).error).toMatchObject({ code: "too_many_requests", details: { limit: 32 } });
  } finally {
    open.abort();
  }
});

test("a 20 MB body to POST /api/tasks/{id}/work-items and /api/workers/claim: 413 with a JSON body naming the limit, read by the client", async () => {
  const [agent, worker] = [await token("agent"), await token("worker")];
  const task = await (
    await fetch(`${E2E_BASE_URL}/api/tasks`, {
      method: "POST",
      headers: { ...admin, authorization: `Bearer ${agent}` },
      body: JSON.stringify({ title: "limits" }),
    })
  ).json();
  const big = new Uint8Array(20 * 1024 * 1024).fill(97);
  for (let i = 0; i < 3; i++) {
    for (const [path, who] of [
      [`/api/tasks/${task.id}/work-items`, agent],
      ["/api/workers/claim", worker],
    ]) {
      const res = await fetch(`${E2E_BASE_URL}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${who}`, "content-type": "application/json" },
        body: big,
      });
      expect(res.status, path).toBe(413);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: "payload_too_large", details: { limit: 1048576, received: 20971520 } });
      expect(error.message).toContain("at most 1 MiB (1048576 bytes)");
    }
  }
});

test("a worker token's Stop: 403 saying why and what to use instead", async () => {
  const [agent, worker] = [await token("agent"), await token("worker")];
  const task = await (
    await fetch(`${E2E_BASE_URL}/api/tasks`, {
      method: "POST",
      headers: { ...admin, authorization: `Bearer ${agent}` },
      body: JSON.stringify({ title: "not yours to stop" }),
    })
  ).json();
  const res = await fetch(`${E2E_BASE_URL}/api/tasks/${task.id}/cancel`, {
    method: "POST",
    headers: { authorization: `Bearer ${worker}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(403);
  expect((await res.json()).error.message).toBe(
    "A worker token cannot stop a task: worker tokens only run work items (claim, heartbeat, checkpoint, report); use an agent or admin token, or sign in as the task's owner, an operator or an admin.",
  );
});
