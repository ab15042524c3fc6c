import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findOwnServer, portIsFree, portTakenMessage } from "../../../scripts/start/stale-server";

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "stopline-stale-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a start that finds the port taken says by whom (issue 11, item 9)", () => {
  it("another program on the port: not ours, and the message says to pick another port", async () => {
    const other = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => other.once("listening", r));
    const port = (other.address() as { port: number }).port;
    expect(await portIsFree(port, "127.0.0.1")).toBe(false);
    expect(findOwnServer(dir, port)).toBeNull();
    expect(portTakenMessage(port, "127.0.0.1", null)).toMatch(/in use by another program.*PORT=/);
    other.close();
  });

  it("a process of this directory that looks like our server but does not hold the port is not blamed; one that holds it is", async () => {
    // A stand-in "scripts/start/serve.ts" (the name is what identifies it) run from `dir`, listening on a port.
    const file = path.join(dir, "scripts", "start", "serve.ts");
    await import("node:fs").then((fs) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, "require('node:net').createServer().listen(Number(process.argv[2]), '127.0.0.1', () => console.log('up'));");
    });
    const probe = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => probe.once("listening", r));
    const port = (probe.address() as { port: number }).port;
    probe.close();
    await new Promise((r) => probe.once("close", r));
    const child = spawn(process.execPath, [file, String(port)], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout!.on("data", () => resolve()));
    try {
      expect(findOwnServer(dir, port)).toMatchObject({ pid: child.pid, how: "process table" });
      expect(findOwnServer(dir, port + 1)).toBeNull();
      expect(portTakenMessage(port, "127.0.0.1", findOwnServer(dir, port))).toContain(`kill ${child.pid}`);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
