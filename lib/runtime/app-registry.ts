import { ToolRegistry } from "../tools/registry";

const globalForRegistry = globalThis as unknown as { stoplineRegistry?: ToolRegistry };

/**
 * The tools this process can run, stop, inspect and compensate. One per process (shared by the worker
 * pool, the cancellation engine and the review routes). Tool packages register into it at start-up.
 */
export function appRegistry(): ToolRegistry {
  return (globalForRegistry.stoplineRegistry ??= new ToolRegistry());
}
