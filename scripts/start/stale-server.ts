/**
 * A start that finds its port taken says by whom (issue 11, item 9): a Stopline server of this directory left
 * over from an earlier start (its pid and what to do), or some other program.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

/** Where a running server records itself (written by scripts/start/serve.ts, removed when it stops). */
export const serverFile = (root: string, port: number) => path.join(root, "data", `server-${port}.json`);

/** Is host:port free to listen on? */
export function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

export interface StaleServer {
  pid: number;
  startedAt: string | null;
  how: "server file" | "process table";
}

/**
 * The Stopline server of `root` that holds `port`, if there is one: from its server file (a live pid), else —
 * for a server started before server files existed — from the process table (a next-server or serve.ts whose
 * working directory is `root`; Linux only).
 */
export function findOwnServer(root: string, port: number): StaleServer | null {
  try {
    const info = JSON.parse(readFileSync(serverFile(root, port), "utf8")) as { pid?: number; root?: string; startedAt?: string };
    if (typeof info.pid === "number" && info.root === root && info.pid !== process.pid && alive(info.pid)) {
      return { pid: info.pid, startedAt: info.startedAt ?? null, how: "server file" };
    }
  } catch {
    /* no file, or unreadable: look at the processes */
  }
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  const listening = listeningSocketInodes(port);
  if (!listening.size) return null;
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) !== root) continue;
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ");
      if (!/next-server|next(\/dist\/bin\/next)? start|scripts\/start\/serve\.ts/.test(cmd)) continue;
      // …and it is the one listening on this port.
      const holds = readdirSync(`/proc/${p}/fd`).some((fd) => {
        try {
          return listening.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${p}/fd/${fd}`))?.[1] ?? "");
        } catch {
          return false;
        }
      });
      if (holds) return { pid, startedAt: null, how: "process table" };
    } catch {
      /* gone, or not ours to read */
    }
  }
  return null;
}

/** Inodes of the TCP sockets listening on `port` (from /proc/net/tcp and tcp6). */
function listeningSocketInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== "0A") continue; // 0A = LISTEN
      if (parseInt(f[1].split(":")[1], 16) === port) inodes.add(f[9]);
    }
  }
  return inodes;
}

/** What to tell the person when the port is taken. */
export function portTakenMessage(port: number, host: string, own: StaleServer | null): string {
  if (own) {
    return [
      `port ${port} is still held by a Stopline server from an earlier start of this directory (pid ${own.pid}${own.startedAt ? `, started ${own.startedAt}` : ""}).`,
      `Its npm start was ended without stopping it (for example by kill -9). Stop it with:  kill ${own.pid}`,
      `then run npm start again (or use another port: PORT=${port + 10} npm start).`,
    ].join("\n           ");
  }
  return `port ${port} on ${host} is in use by another program. Stop it, or choose another port: PORT=${port + 10} npm start`;
}
