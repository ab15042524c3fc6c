/**
 * Counters the hot path bumps (a tool call started), kept as plain numbers with no dependency: a runner imports this,
 * not prom-client, and the Prometheus registry (metrics.ts) reads them at each scrape. One store per process.
 */
const globalForCounters = globalThis as unknown as { stoplineCounters?: { toolCalls: Map<string, number> } };
export const counters = (globalForCounters.stoplineCounters ??= { toolCalls: new Map() });

/** A tool call started (claimed by a worker of this process, or handed to a remote worker by this process). */
export function countToolCall(toolName: string): void {
  counters.toolCalls.set(toolName, (counters.toolCalls.get(toolName) ?? 0) + 1);
}
