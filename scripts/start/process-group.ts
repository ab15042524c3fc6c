/**
 * Runs a child (next build / next start / next dev) in its OWN process group and ends that whole group
 * when this process is told to stop.
 *
 * Why a group: `next start` forks `next-server`; signalling only the process we spawned (or an npx wrapper)
 * leaves next-server holding the port. `detached: true` makes the child a group leader, so
 * `process.kill(-pid, signal)` reaches it and everything it forked.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { constants } from "node:os";

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** After a forwarded signal, how long the group gets to exit before it is SIGKILLed. */
const KILL_AFTER_MS = 10_000;

export type ChildExit = { code: number; signal: NodeJS.Signals | null };

let current: ChildProcess | null = null;
let stopSignal: NodeJS.Signals | null = null;
let killTimer: NodeJS.Timeout | null = null;

/** The signal that asked us to stop, if any; callers stop starting new phases once it is set. */
export function stopRequested(): NodeJS.Signals | null {
  return stopSignal;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* the group is already gone */
  }
}

/** Installs the signal handlers once. A signal with no child running ends this process at once. */
export function installSignalForwarding() {
  for (const signal of FORWARDED) {
    process.on(signal, () => {
      stopSignal ??= signal;
      // npm and tsx relay the terminal's signal too, so the same signal can arrive twice: forwarding it
      // again is harmless. No "second Ctrl-C = force" semantics for that reason; the timer below forces.
      if (!current) process.exit(128 + (constants.signals[signal] ?? 0));
      signalGroup(current, signal);
      if (!killTimer) {
        const child = current;
        killTimer = setTimeout(() => signalGroup(child, "SIGKILL"), KILL_AFTER_MS);
        killTimer.unref();
      }
    });
  }
  // Last resort if this process dies of an uncaught error: do not leave a server behind.
  process.on("exit", () => {
    if (current) signalGroup(current, "SIGTERM");
  });
}

/**
 * Stops (as if SIGTERM had arrived) when the parent process is gone — the npm that ran `npm start` was killed,
 * say with kill -9: this process is then re-parented and notices within a second. Only for parents that exit
 * only after their child (npm): a shell that ran us in the background may well exit first.
 */
export function stopWithParent(intervalMs = 500) {
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    console.log(`[stopline] the process that ran this start (pid ${parent}) is gone: stopping`);
    process.emit("SIGTERM");
  }, intervalMs);
  timer.unref();
}

/**
 * Calls `stop` when the process that spawned this one is gone, however it ended (kill -9 included): that parent
 * holds this process's stdin open as a pipe (`npm start` sets STOPLINE_PARENT_PIPE=1 for its server; the benchmark
 * does so for its apps and worker processes), and the pipe's end — or failure — says it is gone.
 */
export function stopWhenParentPipeCloses(stop: (how: "its pipe closed" | "its pipe failed") => void) {
  process.stdin.on("data", () => {});
  process.stdin.on("end", () => stop("its pipe closed"));
  process.stdin.on("error", () => stop("its pipe failed"));
}

/** Spawns `command args` as the leader of a new process group; resolves when it exits. */
export function runInOwnGroup(command: string, args: string[], options: SpawnOptions = {}): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], ...options, detached: true });
    current = child;
    child.once("error", (error) => {
      current = null;
      reject(error);
    });
    child.once("exit", (code, signal) => {
      current = null;
      if (killTimer) clearTimeout(killTimer);
      killTimer = null;
      // The group leader exited; make sure nothing it forked (next-server) outlives it.
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        /* group already empty */
      }
      resolve({ code: code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0), signal });
    });
  });
}
