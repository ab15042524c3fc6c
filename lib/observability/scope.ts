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

const globalForScope = globalThis as unknown as { stoplineScope?: AsyncLocalStorage<Scope>; stoplineScopesOn?: boolean };
const store = (globalForScope.stoplineScope ??= new AsyncLocalStorage<Scope>());

/**
 * Whether anything reads scopes (JSON logs, exported traces). On Node 20 an AsyncLocalStorage in use costs every
 * promise of the process something (measured: ~15% of a worker pool's claims per second on PostgreSQL), so the hot
 * path — a tool call — enters a scope only when something reads it; a Stop's steps always do (they are few).
 */
export const scopesWanted = (): boolean => globalForScope.stoplineScopesOn === true;
export const wantScopes = (on = true) => void (globalForScope.stoplineScopesOn = on);

export const currentScope = (): Scope | undefined => store.getStore();

/** Runs `fn` in `scope` (added to the current one). */
export const inScope = <T>(scope: Scope, fn: () => T): T => store.run({ ...store.getStore(), ...scope }, fn);
