import type { CallRef, InspectOutcome } from "../tools/contract";

type Outcome = "completed" | "failed" | "cancelled" | "partial" | "cancelled_incomplete";

/** The parts of a tool's contract its own stop path uses (the AI SDK wrapper's StopContract; a worker's ToolDefinition). */
export interface StopPath {
  mechanism: string;
  commitsEffect?: boolean;
  cancel?(ref: CallRef): Promise<void>;
  rollback?(ref: CallRef): Promise<void>;
  inspect?(ref: CallRef): Promise<InspectOutcome>;
  /** Present when the tool can undo its effect (then a person is offered the reversal). */
  compensate?: unknown;
  /** How long inspect() is asked before the call is left uncertain (default 5 s). */
  settleMs?: number;
}

export interface StopPathReports {
  complete(outcome: Outcome, extra?: Record<string, unknown>): Promise<unknown>;
  uncertain(reason: string): Promise<unknown>;
  /**
   * Records the effect the service confirmed as a side effect of the call, when the call never said `submitted()`
   * (issue 23: what inspect reports committed is a side effect, with its reversal decision, either way).
   */
  recordEffect(effect: {
    operationId: string;
    externalRecordId?: string;
    externalVersion?: string;
    description?: string;
    reversible: boolean;
  }): Promise<unknown>;
}

/**
 * The stop path of a call that may have reached its service, run where the tool's contract lives (the agent's
 * process): cancel or rollback, then inspect until the service says what happened or `settleMs` passes —
 * committed → completed (the effect recorded, whether or not the call had said submitted()); not committed →
 * cancelled (or partial); anything else → uncertain with the reason. Never a guess.
 */
export async function settleByContract(
  contract: StopPath | undefined,
  ref: CallRef,
  call: { stopped: boolean; message: string; submitted: boolean },
  report: StopPathReports,
) {
  const { stopped, message } = call;
  const notes: string[] = [];
  if (stopped && contract?.mechanism === "provider_cancel" && contract.cancel) {
    try {
      await contract.cancel(ref);
      notes.push("cancel sent");
    } catch (error) {
      notes.push(`cancel failed: ${(error as Error).message}`);
    }
  } else if (stopped && contract?.mechanism === "rollback" && contract.rollback) {
    try {
      await contract.rollback(ref);
      notes.push("rollback sent");
    } catch (error) {
      notes.push(`rollback failed: ${(error as Error).message}`);
    }
  }
  if (!contract?.inspect) {
    await report
      .uncertain(
        `${stopped ? "stopped" : message} after the action may have reached its service, and the tool has no inspect(): ${notes.join("; ") || "nothing could be asked"}`,
      )
      .catch(() => {});
    return;
  }
  const deadline = Date.now() + (contract.settleMs ?? 5_000);
  let last: InspectOutcome = { status: "unknown", reason: "not asked yet" };
  for (let wait = 100; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      last = await contract.inspect(ref);
    } catch (error) {
      last = { status: "unknown", reason: `inspect failed: ${(error as Error).message}` };
    }
    if (last.status === "committed") {
      if (contract.commitsEffect && !call.submitted) {
        // The call never said submitted() (or its report was lost): the effect the service confirms is recorded
        // now, so that it is in the ledger as a side effect with its reversal decision — not only as a result.
        await report
          .recordEffect({
            operationId: last.externalRecordId ?? ref.operationId ?? ref.idempotencyKey,
            externalRecordId: last.externalRecordId ?? undefined,
            externalVersion: last.externalVersion ?? undefined,
            description: last.description,
            reversible: !!contract.compensate,
          })
          .catch(() => {});
      }
      await report.complete("completed", {
        result: jsonSafe(last.result) ?? null,
        externalRecordId: last.externalRecordId ?? undefined,
        externalVersion: last.externalVersion ?? undefined,
      });
      return;
    }
    // "Not found" is final only once the request was withdrawn (the cancel/rollback went through): otherwise a
    // request still in flight may land after this answer — keep asking, and hand it over uncertain if it does not.
    const withdrawn = notes.includes("cancel sent") || notes.includes("rollback sent") || !(contract.cancel || contract.rollback);
    if (last.status === "not_committed" && !withdrawn && Date.now() + wait <= deadline) {
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    if (last.status === "not_committed" && !withdrawn) {
      await report
        .uncertain(`${notes.join("; ")}; the service has no record of it yet, and the request could not be withdrawn: it may still land`)
        .catch(() => {});
      return;
    }
    if (last.status === "not_committed") {
      if (!stopped) await report.complete("failed", { error: `${message} (the service confirms it did not take effect)` });
      else if (last.partialResult !== undefined && last.partialResult !== null) {
        await report.complete(last.partialComplete ? "partial" : "cancelled_incomplete", {
          partialResult: jsonSafe(last.partialResult),
          partialComplete: !!last.partialComplete,
        });
      } else await report.complete("cancelled");
      return;
    }
    if (Date.now() + wait > deadline) break;
    await new Promise((r) => setTimeout(r, wait));
  }
  const said = last.status === "running" ? "the service still reports it running" : last.reason;
  await report.uncertain(`${notes.includes("cancel sent") ? "cancel sent, not confirmed" : stopped ? "stopped" : message}: ${said}`).catch(() => {});
}

/** What the ledger can store: JSON (undefined, functions and cycles dropped). */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
  } catch {
    return String(value);
  }
}

/**
 * A commitment that succeeded without saying `submitted()`: its service is asked once what it did, so that the effect
 * is in the ledger as a side effect (with its record id and version, and the reversal decision after a Stop).
 */
export async function recordEffectOfSuccess(
  contract: StopPath | undefined,
  ref: CallRef,
  report: Pick<StopPathReports, "recordEffect">,
): Promise<{ externalRecordId?: string; externalVersion?: string }> {
  if (!contract?.commitsEffect || !contract.inspect) return {};
  try {
    const outcome = await contract.inspect(ref);
    if (outcome.status !== "committed") return {};
    await report.recordEffect({
      operationId: outcome.externalRecordId ?? ref.operationId ?? ref.idempotencyKey,
      externalRecordId: outcome.externalRecordId ?? undefined,
      externalVersion: outcome.externalVersion ?? undefined,
      description: outcome.description,
      reversible: !!contract.compensate,
    });
    return { externalRecordId: outcome.externalRecordId ?? undefined, externalVersion: outcome.externalVersion ?? undefined };
  } catch {
    return {};
  }
}
