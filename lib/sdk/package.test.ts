import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
// Inside the repository, so that the bundle's two dependencies resolve from node_modules as they would
// from the package's own node_modules once installed.
const OUT = path.join(ROOT, "output", "sdk-package-test");
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

it("npm run build:sdk packages the SDK on its own: one ESM bundle with only zod and eventsource-parser outside, types, a package.json — and it works from plain Node", () => {
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  execFileSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "build-sdk.ts"), OUT], { env, stdio: "pipe" });
  const bundle = readFileSync(path.join(OUT, "index.mjs"), "utf8");
  const imports = [...bundle.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
  expect(new Set(imports)).toEqual(new Set(["zod", "eventsource-parser/stream"]));
  expect(bundle).not.toMatch(/prisma|better-sqlite3|from "pg"|node:/);
  const pkg = JSON.parse(readFileSync(path.join(OUT, "package.json"), "utf8"));
  expect(pkg).toMatchObject({ name: "@stopline/sdk", type: "module", exports: { ".": { import: "./index.mjs", types: "./index.d.ts" } } });
  expect(Object.keys(pkg.dependencies).sort()).toEqual(["eventsource-parser", "zod"]);
  expect(existsSync(path.join(OUT, "index.d.ts"))).toBe(true);

  // The packed client in a separate, plain Node process (no tsx), against a stub fetch.
  const script = `
    import { StoplineClient, StaleIntentError } from ${JSON.stringify(path.join(OUT, "index.mjs"))};
    const task = { id: "t1", ownerId: "me", conversationId: null, title: "x", riskLevel: "low", stage: "active", intentVersion: 1, proposalVersion: 0, proposal: null,
      cancelRequestedAt: null, cancelReason: null, cancelRequestedBy: null, cancelIntentVersion: null, rowVersion: 1, createdAt: "2026-11-30T00:00:00.000Z", updatedAt: "2026-11-30T00:00:00.000Z",
      settledAt: null, turnId: null, endedAt: null, endReason: null };
    const fetch = async (url, init) => url.endsWith("/work-items")
      ? new Response(JSON.stringify({ error: { code: "stale_intent", message: "prepared under 1, task at 2" } }), { status: 409, headers: { "content-type": "application/json" } })
      : new Response(JSON.stringify(task), { status: 201, headers: { "content-type": "application/json" } });
    const client = new StoplineClient({ baseUrl: "http://stub", token: "t", fetch });
    const created = await client.createTask({ title: "x" });
    const refused = await client.scheduleWorkItem("t1", { kind: "local_worker", toolName: "a", mechanism: "abort_signal", intentVersion: 1 }).catch((e) => e);
    console.log(JSON.stringify({ id: created.id, typed: refused instanceof StaleIntentError }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { env, encoding: "utf8" });
  expect(JSON.parse(out.trim())).toEqual({ id: "t1", typed: true });
}, 60_000);
