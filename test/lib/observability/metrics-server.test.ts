import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { startMetricsServer } from "../../../lib/observability/metrics-server";
import { countToolCall } from "../../../lib/observability/counters";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe("STOPLINE_METRICS_PORT: /metrics on a listener of its own", () => {
  it("serves the text exposition without a token, bound where the operator said (127.0.0.1 by default); nothing else", async () => {
    expect(await startMetricsServer(null, { port: 0 })).toBeNull(); // unset: no listener
    const port = await freePort();
    const started = (await startMetricsServer(null, { port }))!;
    try {
      expect(started.url).toBe(`http://127.0.0.1:${port}/metrics`);
      countToolCall("demo.tool");
      const res = await fetch(started.url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await res.text()).toMatch(/^stopline_tool_calls_started_total\{tool="demo.tool"\} 1$/m);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    } finally {
      started.server.close();
    }
  });
});
