import type { Database } from "../db/client";
import { stepEvent } from "../observability/tracing";
import { writeLedger, type EventInput } from "../ledger/write";
import { LedgerEvent } from "../ledger/events";

export const ENGINE_ACTOR = "system:cancellation-engine";

/** Every step of a cancellation is a ledger event: work item id, action, time, success or failure. */
export async function logStep(
  database: Database,
  step: { taskId: string; workItemId?: string | null; action: string; success: boolean; detail?: string; data?: Record<string, unknown> },
) {
  stepEvent(step); // the step (a child's stop action, the service's answer) on the span of the Stop's step running now
  const event: EventInput = {
    taskId: step.taskId,
    workItemId: step.workItemId ?? null,
    entityType: "task",
    entityId: step.taskId,
    actor: ENGINE_ACTOR,
    type: LedgerEvent.cancellationStep,
    reason: step.detail ?? null,
    data: { action: step.action, success: step.success, ...step.data },
  };
  await writeLedger(database, (w) => w.event(event));
}

/** A call that gave no answer within its time: unlike an error the service answered with, whether it acted is unknown. */
export class NoAnswerError extends Error {}

/**
 * Retries `fn` with exponential backoff; an attempt that takes longer than `timeoutMs` counts as failed
 * (an endpoint that hangs is as unavailable as one that refuses). Returns the last error when all failed.
 */
export async function withRetries<T>(
  fn: () => Promise<T>,
  attempts: number,
  baseDelayMs: number,
  timeoutMs = 10_000,
): Promise<{ ok: true; value: T } | { ok: false; error: Error; attempts: number }> {
  let last: Error = new Error("not attempted");
  for (let i = 0; i < attempts; i++) {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new NoAnswerError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      return { ok: true, value: await Promise.race([fn(), timeout]) };
    } catch (error) {
      last = error instanceof Error ? error : new Error(String(error));
      if (i < attempts - 1) await sleep(baseDelayMs * 2 ** i);
    } finally {
      clearTimeout(timer);
    }
  }
  return { ok: false, error: last, attempts };
}

/** How long a person's request (approving a compensation, retrying a release) waits on a service before saying so. */
export const SERVICE_ANSWER_MS = 5_000;

/** One attempt at `fn`, bounded at `timeoutMs`: a service that does not answer in time reads as unavailable. */
export const answerWithin = <T>(fn: () => Promise<T>, timeoutMs = 10_000) => withRetries(fn, 1, 0, timeoutMs);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
