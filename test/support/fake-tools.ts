import { setTimeout as sleep } from "node:timers/promises";
import type { CompensationResult, ToolContext, ToolDefinition } from "../../lib/tools/contract";
import type { FakeService } from "./fake-service";

/**
 * Tools written against FakeService with the real ToolDefinition contract, the way an agent developer
 * would write them: run() uses ctx.checkpoint / ctx.submitted / ctx.holdResource / ctx.reportPartial /
 * ctx.signal; inspect / cancel / cleanup / verifyReleased / compensate ask the service.
 * Who did what is visible in the service's witness log: the running code acts as "tool:<toolCallId>",
 * Stopline's calls as "stopline:<step>".
 */

const by = (ctx: ToolContext) => `tool:${ctx.toolCallId}`;

/** Sleeps, or throws the signal's reason as soon as it aborts (a cooperative cancellation opportunity). */
async function pause(ms: number, signal: AbortSignal) {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * A cooperative local worker (mechanism abort_signal): takes a lock, produces rows one step at a time and
 * checks its AbortSignal between steps. On abort it reports the rows it has (when `partial` is set) and
 * releases its lock in `finally` — a claim Stopline still verifies.
 */
export function reportTool(
  service: FakeService,
  options: { name: string; steps?: number; stepMs?: number; partial?: { complete: boolean }; lock?: boolean },
): ToolDefinition<unknown, { rows: number[] }> {
  const { name, steps = 200, stepMs = 10, partial, lock = true } = options;
  return {
    name,
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    async run(_input, ctx) {
      const me = by(ctx);
      const handle = `report-lock:${ctx.toolCallId}`;
      service.note("work.started", me, ctx.toolCallId);
      if (lock) {
        service.acquireLock(handle, me);
        await ctx.holdResource("lock", handle);
      }
      const rows: number[] = [];
      try {
        for (let i = 1; i <= steps; i++) {
          await pause(stepMs, ctx.signal);
          rows.push(i);
          service.note("work.step", me, ctx.toolCallId, { row: i });
        }
        service.note("work.finished", me, ctx.toolCallId, { rows: rows.length });
        return { rows };
      } catch (error) {
        if (ctx.signal.aborted) {
          service.note("work.stopped", me, ctx.toolCallId, { rows: rows.length, reason: String((ctx.signal.reason as Error)?.message ?? ctx.signal.reason) });
          if (partial && rows.length) await ctx.reportPartial({ rows: [...rows] }, { complete: partial.complete });
        }
        throw error;
      } finally {
        if (lock) {
          service.releaseLock(handle, me);
          await ctx.releaseResource("lock", handle);
        }
      }
    },
    async cleanup(resource) {
      service.releaseLock(resource.handle, "stopline:cleanup");
    },
    async verifyReleased(resource) {
      return !service.isLockHeld(resource.handle, "stopline:verify");
    },
  };
}

/**
 * An external action (create a CRM contact): passes the checkpoint, submits with its idempotency key,
 * records the acceptance (ctx.submitted) and waits for the answer. Inspectable by operation id; reversible
 * by archiving the record — only at the version the agent produced.
 * Mechanism provider_cancel (the service's cancel endpoint) by default, or abort_signal (local code that
 * only stops waiting).
 */
export function crmCreateTool(
  service: FakeService,
  options: { name: string; mechanism?: "provider_cancel" | "abort_signal"; risk?: "low" | "high"; answerTimeoutMs?: number },
): ToolDefinition<{ name: string }, { recordId: string | null; version: number | null }> {
  const { name, mechanism = "provider_cancel", risk = "low", answerTimeoutMs } = options;
  const tool: ToolDefinition<{ name: string }, { recordId: string | null; version: number | null }> = {
    name,
    kind: "external_action",
    risk,
    commitsEffect: true,
    mechanism,
    async run(input, ctx) {
      await ctx.checkpoint();
      const op = service.submitOperation({ idempotencyKey: ctx.idempotencyKey, kind: "crm.contact", payload: input, by: by(ctx) });
      await ctx.submitted(op.id, { reversible: true, description: `CRM contact "${input?.name}"` });
      const done = await service.awaitOperation(op.id, { signal: ctx.signal, timeoutMs: answerTimeoutMs });
      if (done.status !== "applied") throw new Error(`operation ${op.id} was ${done.status}`);
      return { recordId: done.recordId, version: done.producedVersion };
    },
    async inspect(ref) {
      const op = service.inspectOperation({ operationId: ref.operationId, idempotencyKey: ref.idempotencyKey }, "stopline:inspect");
      if (!op || op.status === "cancelled") return { status: "not_committed" };
      if (op.status === "accepted") return { status: "running" };
      return {
        status: "committed",
        externalRecordId: op.recordId,
        // The version the operation produced — not the record's current one (someone may have edited it since).
        externalVersion: String(op.producedVersion),
        result: { recordId: op.recordId, version: op.producedVersion },
        description: `CRM contact "${(op.payload as { name?: string })?.name}" (record ${op.recordId}, version ${op.producedVersion})`,
      };
    },
    async compensate(effect, expectedVersion): Promise<CompensationResult> {
      if (!effect.externalRecordId) return { status: "failed", detail: "no record id to archive" };
      const archived = service.archiveRecord(effect.externalRecordId, expectedVersion === null ? null : Number(expectedVersion), "stopline:compensate");
      if (archived.status === "archived") return { status: "compensated", detail: `archived ${effect.externalRecordId}` };
      if (archived.status === "conflict")
        return { status: "conflict", currentVersion: String(archived.currentVersion), detail: `record ${effect.externalRecordId} was changed by someone else` };
      return { status: "failed", detail: `record ${effect.externalRecordId} not found` };
    },
    describeEffect(effect) {
      return `CRM contact record ${effect.externalRecordId} (version ${effect.externalVersion})`;
    },
  };
  if (mechanism === "provider_cancel") {
    tool.cancel = async (ref) => {
      const id = ref.operationId ?? service.inspectOperation({ idempotencyKey: ref.idempotencyKey }, "stopline:cancel")?.id;
      if (id) service.cancelOperation(id, "stopline:cancel");
    };
  }
  return tool;
}

/**
 * A remote job with a provider cancel endpoint (a background model response, a report export): started with
 * its idempotency key, recorded as accepted (ctx.submitted with the job id as providerRef) unless
 * `recordSubmission` is false, then awaited with the AbortSignal.
 */
export function remoteJobTool(
  service: FakeService,
  options: { name: string; steps?: number; stepMs?: number; recordSubmission?: boolean },
): ToolDefinition<unknown, unknown> {
  const { name, steps = 1_000, stepMs = 20, recordSubmission = true } = options;
  const jobOf = (ref: { providerRef: string | null; operationId: string | null; idempotencyKey: string }, asker: string) =>
    ref.providerRef ?? ref.operationId ?? service.inspectJob({ key: ref.idempotencyKey }, asker)?.id ?? null;
  return {
    name,
    kind: "model_request",
    risk: "low",
    commitsEffect: false,
    mechanism: "provider_cancel",
    async run(_input, ctx) {
      const job = service.startJob({ key: ctx.idempotencyKey, steps, stepMs, by: by(ctx) });
      if (recordSubmission) await ctx.submitted(job.id, { providerRef: job.id, description: `remote job ${job.id}` });
      const done = await service.awaitJob(job.id, ctx.signal);
      if (done.status === "cancelled") throw new Error(`job ${job.id} was cancelled`);
      return done.result;
    },
    async cancel(ref) {
      const id = jobOf(ref, "stopline:cancel");
      if (id) service.cancelJob(id, "stopline:cancel");
    },
    async inspect(ref) {
      const id = jobOf(ref, "stopline:inspect");
      const job = id ? service.inspectJob({ jobId: id }, "stopline:inspect") : null;
      if (!job || job.status === "cancelled") return { status: "not_committed" };
      if (job.status === "running") return { status: "running" };
      return { status: "committed", result: job.result, description: `remote job ${job.id} finished` };
    },
  };
}

/**
 * A slow remote export with no way to stop it (mechanism none): it starts a job and waits for it, ignoring
 * its AbortSignal entirely.
 */
export function unstoppableExportTool(service: FakeService, options: { name: string; steps?: number; stepMs?: number }): ToolDefinition<unknown, unknown> {
  const { name, steps = 10, stepMs = 50 } = options;
  return {
    name,
    kind: "remote_tool",
    risk: "low",
    commitsEffect: false,
    mechanism: "none",
    async run(_input, ctx) {
      const job = service.startJob({ key: ctx.idempotencyKey, steps, stepMs, by: by(ctx) });
      const done = await service.awaitJob(job.id); // deliberately no signal
      return done.result;
    },
  };
}
