import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the code running now is working on — a task, a work item, the trace and span they belong to — carried
 * through its awaits (AsyncLocalStorage). Structured logs read it (log.ts), and so do the trace headers that
 * adapters send (tracing.ts `traceHeaders`), whether or not traces are exported. One store per process, whichever
 * copy of this module asks (Next.js's bundle and the server's own source both run in `npm start`'s process).
 */
export interface Scope {
  taskId?: string;
  workItemId?: string;
  traceId?: string;
  spanId?: string;
  /** Whether that trace is exported (the traceparent's sampled flag). */
  sampled?: boolean;
}

const globalForScope = globalThis as unknown as { stoplineScope?: AsyncLocalStorage<Scope> };
const store = (globalForScope.stoplineScope ??= new AsyncLocalStorage<Scope>());

export const currentScope = (): Scope | undefined => store.getStore();

/** Runs `fn` in `scope` (added to the current one). */
export const inScope = <T>(scope: Scope, fn: () => T): T => store.run({ ...store.getStore(), ...scope }, fn);
