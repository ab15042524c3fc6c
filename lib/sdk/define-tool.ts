import type { ToolDefinition } from "../tools/contract";

/**
 * Declares a tool once — its stop contract (kind, risk, commitsEffect, mechanism, cancel/inspect/…) beside its
 * `run` — with the contract's types applied. It returns the definition unchanged; it exists so that a plain object
 * literal keeps its literal types (`kind: "local_worker"`, not `string`) and `run`'s `ctx` is typed, in TypeScript
 * under `strict` and in JavaScript alike:
 *
 *   const count = defineTool({ name: "count", kind: "local_worker", risk: "low", commitsEffect: false,
 *     mechanism: "abort_signal", async run({ to }: { to: number }, ctx) { … } });
 *   await runWorker({ client, tools: [count], workerId: "w1" });
 */
export function defineTool<I, O>(definition: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return definition;
}
