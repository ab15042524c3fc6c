import { spawn, type ChildProcess } from "node:child_process";

/**
 * Child processes for the SDK's integration tests (`node --import tsx <script>`), talking JSON lines on stdout.
 * vitest's fork workers carry NODE_CHANNEL_FD; a grandchild inheriting it waits on an IPC channel that is not
 * there — it is stripped from the environment (as in test/lib/db/database.int.test.ts).
 */
export type Message = { event: string; workItemId?: string; outcome?: string; [k: string]: unknown };

export interface TestProcess {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly messages: Message[];
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first message with this event, already received or still to come; rejects if the process exits first. */
  next(event: string, timeoutMs?: number, where?: (m: Message) => boolean): Promise<Message>;
  /** Resolves when stdout contains `text`. */
  printed(text: string | RegExp, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnTsx(name: string, script: string, args: string[] = [], env: Record<string, string> = {}): TestProcess {
  return spawnProcess(name, process.execPath, ["--import", "tsx", script, ...args], env);
}

/** Any command (e.g. the Node 22 binary of tools/node22), with the same JSON-lines protocol. */
export function spawnProcess(name: string, command: string, args: string[], env: Record<string, string> = {}, cwd?: string): TestProcess {
  const { NODE_CHANNEL_FD: _ipc, ...inherited } = process.env;
  const proc = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...inherited, ...env } });
  const messages: Message[] = [];
  let out = "";
  let err = "";
  let buffered = "";
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of listeners) l();
  };
  proc.stderr!.on("data", (d) => {
    err += d;
    notify();
  });
  proc.stdout!.on("data", (d) => {
    out += d;
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line.startsWith("{")) {
        try {
          messages.push(JSON.parse(line));
        } catch {
          /* a printed object that is not one of ours */
        }
      }
    }
    notify();
  });
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("exit", (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
      notify();
    }),
  );
  const waitFor = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found !== undefined) return done(() => resolve(found));
        if (exitInfo)
          return done(() => reject(new Error(`${name} exited (${exitInfo!.code ?? exitInfo!.signal}) before ${what}\nstdout:\n${out}\nstderr:\n${err}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${name}: no ${what} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`))), timeoutMs);
      const done = (f: () => void) => {
        clearTimeout(timer);
        listeners.delete(attempt);
        f();
      };
      listeners.add(attempt);
      attempt();
    });
  return {
    name,
    proc,
    messages,
    exited,
    stdout: () => out,
    stderr: () => err,
    next: (event, timeoutMs = 30_000, where = () => true) => waitFor(() => messages.find((m) => m.event === event && where(m)), `"${event}"`, timeoutMs),
    printed: (text, timeoutMs = 30_000) =>
      waitFor(() => ((typeof text === "string" ? out.includes(text) : text.test(out)) ? true : undefined), `output ${text}`, timeoutMs).then(() => {}),
    async kill(signal = "SIGKILL") {
      if (exitInfo) return exitInfo;
      proc.kill(signal);
      return exited;
    },
  };
}
