import { z } from "zod";
import type { ToolDefinition } from "../lib/sdk";

/**
 * `example.slow_count` — a local tool for the examples: counts from 1 to `to`, one number every `stepMs`.
 *
 * It is cooperative (mechanism abort_signal): it stops as soon as `ctx.signal` fires — a worker process
 * learns of a Stop on its next heartbeat — and then reports what it has so far as a partial result. A counted
 * prefix is a complete, valid subset of the output, so it vouches for it (`complete: true`): the cancellation
 * summary keeps it as PARTIAL_RESULT.
 */
export const SLOW_COUNT = "example.slow_count";

export const SlowCountInput = z.object({
  to: z.number().int().min(1).max(1_000_000),
  stepMs: z.number().int().min(0).max(60_000).default(100),
});
export type SlowCountInput = z.infer<typeof SlowCountInput>;
export interface SlowCountResult {
  counted: number;
  of: number;
  last: number | null;
}

export interface SlowCountOptions {
  /** Called every `progressEvery` numbers (default 10). */
  onProgress?: (progress: { toolCallId: string; counted: number; of: number }) => void;
  progressEvery?: number;
}

export function slowCountTool(options: SlowCountOptions = {}): ToolDefinition<SlowCountInput, SlowCountResult> {
  const every = options.progressEvery ?? 10;
  return {
    name: SLOW_COUNT,
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    input: SlowCountInput,
    async run({ to, stepMs }, ctx) {
      let counted = 0;
      for (let n = 1; n <= to; n++) {
        try {
          await sleep(stepMs, ctx.signal);
        } catch (reason) {
          // Stopped: keep what was counted (nothing counted → nothing to keep, the item ends "cancelled").
          if (counted > 0) await ctx.reportPartial({ counted, of: to, last: counted } satisfies SlowCountResult, { complete: true });
          throw reason;
        }
        counted = n;
        if (counted % every === 0) options.onProgress?.({ toolCallId: ctx.toolCallId, counted, of: to });
      }
      return { counted, of: to, last: counted };
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
