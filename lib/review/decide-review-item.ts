import type { z } from "zod";
import type { Database } from "../db/client";
import type { CompensationAnswerSchema } from "../api/schema/requests";
import { AppError, ErrorCode } from "../errors";
import type { Principal } from "../auth/tokens";
import { actorOf, principalRef } from "../auth/tokens";
import { isOpenReview, ResourceState, ReviewItemKind, ReviewItemStatus, SideEffectOutcome } from "../ledger/states";
import { LedgerEvent } from "../ledger/events";
import { casUpdate, writeLedger } from "../ledger/write";
import type { CompensationResult, EffectRef } from "../tools/contract";
import type { ToolRegistry } from "../tools/registry";
import { refOf } from "../cancellation/call-ref";
import { answerWithin, NoAnswerError, SERVICE_ANSWER_MS } from "../cancellation/step-log";
import { alreadyDecidedSentence, type Finding } from "./decision-words";
import { resolveUncertain } from "./resolve-uncertain";

/** The losing side of two simultaneous decisions: a 409 with who decided, when and what. */
const alreadyDecided = (item: { id: string; status: string; decidedBy: string | null; decidedAt: Date | null; resolution: string | null }) =>
  new AppError(ErrorCode.conflict, alreadyDecidedSentence(item), {
    currentState: item.status,
    decidedBy: item.decidedBy,
    decidedAt: item.decidedAt?.toISOString() ?? null,
  });

export interface Decision {
  reviewItemId: string;
  decision: "approve" | "reject" | "resolve";
  reason: string;
  evidence?: string;
  /** Resolving an uncertain outcome: what the person found out (it updates the side effect and the summary). */
  finding?: Finding;
  /** Approval binds to the exact proposal the person saw: its target record and version must be repeated. */
  target?: string | null;
  expectedVersion?: string | null;
  /** Closing an orphaned resource that was never verified released: explicitly confirmed, with evidence. */
  confirmNotVerifiedReleased?: true;
}

export interface DecisionResult {
  status: string;
  compensation?: { status: z.infer<typeof CompensationAnswerSchema>; detail: string };
}

interface Proposal {
  target: string | null;
  expectedVersion: string | null;
  tool: string;
  operationId: string;
  description: string;
}

/**
 * A person's decision on a review item. Approving a compensation (invariant 6):
 * - only a person decides (this is reached only through an authenticated route; a model's
 *   `approved: true` is never a decision);
 * - the approval names the exact proposal (target record and version) — a mismatch is refused;
 * - before anything is done, the service is asked for the record's current version: if someone else
 *   changed it, nothing is overwritten — the conflict is recorded and the item escalated.
 */
export async function decideReviewItem(database: Database, registry: ToolRegistry, principal: Principal, input: Decision): Promise<DecisionResult> {
  const actor = actorOf(principal);
  const item = await database.prisma.reviewItem.findUnique({
    where: { id: input.reviewItemId },
    include: { sideEffect: { include: { workItem: true } }, resource: true },
  });
  if (!item) throw new AppError(ErrorCode.notFound, `review item ${input.reviewItemId} not found`, { reviewItemId: input.reviewItemId });
  if (!isOpenReview(item.status)) throw alreadyDecided(item);
  const decide = (
    to: string,
    type: typeof LedgerEvent.reviewItemApproved | typeof LedgerEvent.reviewItemRejected | typeof LedgerEvent.reviewItemResolved,
    extra: Record<string, unknown> = {},
    eventData: Record<string, unknown> = {},
  ) =>
    writeLedger(database, (w) =>
      casUpdate(w, {
        entity: "reviewItem",
        id: item.id,
        from: item.status,
        to,
        data: {
          decidedBy: actor,
          decidedAt: new Date(),
          resolution: [input.reason, input.evidence && `evidence: ${input.evidence}`].filter(Boolean).join(" — "),
          ...extra,
        },
        event: {
          taskId: item.taskId,
          workItemId: item.workItemId,
          actor,
          type,
          reason: input.reason,
          data: { decision: input.decision, evidence: input.evidence ?? null, ...eventData },
        },
      }),
    ).then(async (moved) => {
      if (moved) return;
      // Someone else's decision landed between our read and our write: say whose, when and what.
      const now = await database.prisma.reviewItem.findUnique({ where: { id: item.id } });
      if (now && !isOpenReview(now.status)) throw alreadyDecided(now);
      throw new AppError(ErrorCode.conflict, "this item changed while you were deciding; look at it again", { reviewItemId: item.id });
    });

  if (input.decision === "reject") {
    await decide(ReviewItemStatus.rejected, LedgerEvent.reviewItemRejected);
    return { status: ReviewItemStatus.rejected };
  }
  if (input.decision === "resolve") {
    if (item.kind === ReviewItemKind.approveCompensation)
      throw new AppError(ErrorCode.badRequest, "a proposed compensation is approved or rejected, not resolved", { field: "decision" });
    if (input.finding && item.kind !== ReviewItemKind.resolveUncertain)
      throw new AppError(ErrorCode.badRequest, "a finding answers an uncertain outcome; this item is not one", { field: "finding" });
    if (item.kind === ReviewItemKind.resolveUncertain && input.finding) {
      return resolveUncertain(
        database,
        registry,
        { item, actor, finding: input.finding, reason: input.reason, evidence: input.evidence ?? null },
        alreadyDecided,
      );
    }
    // An orphaned resource that no re-query verified released is closed only on purpose: the person confirms they
    // know it is not verified and says what they did (evidence). The resource stays orphaned in the ledger, so every
    // summary and the person's chat keep saying it was not released (invariant 4: no claim without verification).
    const unverified = item.kind === ReviewItemKind.orphanedResource && item.resource?.state !== ResourceState.released;
    if (unverified && input.confirmNotVerifiedReleased !== true) {
      throw new AppError(
        ErrorCode.badRequest,
        "this resource was never verified released: retry the release, or confirm that you close it without a verified release (confirmNotVerifiedReleased) and give evidence of what you did",
        { field: "confirmNotVerifiedReleased" },
      );
    }
    if (unverified && !input.evidence?.trim()) {
      throw new AppError(ErrorCode.badRequest, "closing a resource without a verified release needs evidence: what you checked or did at the service", {
        field: "evidence",
      });
    }
    await decide(
      ReviewItemStatus.resolved,
      LedgerEvent.reviewItemResolved,
      unverified ? { resolution: `closed without a verified release: ${input.reason} — evidence: ${input.evidence?.trim()}` } : {},
      unverified ? { closedWithoutVerifiedRelease: true } : {},
    );
    return { status: ReviewItemStatus.resolved };
  }

  // approve
  if (item.kind !== ReviewItemKind.approveCompensation || !item.sideEffect) {
    throw new AppError(ErrorCode.badRequest, `only a proposed compensation can be approved; this is "${item.kind}" (use resolve)`, { field: "decision" });
  }
  const proposal = item.proposal as unknown as Proposal;
  if ((input.target ?? null) !== (proposal.target ?? null) || (input.expectedVersion ?? null) !== (proposal.expectedVersion ?? null)) {
    throw new AppError(
      ErrorCode.conflict,
      `the approval does not match the proposal: it was for record ${proposal.target} at version ${proposal.expectedVersion}`,
      {
        proposal: { target: proposal.target, expectedVersion: proposal.expectedVersion },
        approved: { target: input.target ?? null, expectedVersion: input.expectedVersion ?? null },
      },
    );
  }
  // Maker-checker: whoever asked for this compensation — by requesting the reversal of finished work, or by
  // pressing the Stop that led to it — may not approve it, whatever their role is now.
  if (requestedTheReversal(item, principal)) {
    throw new AppError(ErrorCode.forbidden, "you requested this reversal: another person must approve it (maker-checker)", { requestedBy: item.requestedBy });
  }
  const task = await database.prisma.task.findUnique({ where: { id: item.taskId }, select: { cancelRequestedBy: true, cancelRequestedById: true } });
  if (task && requestedTheStop(task, principal)) {
    throw new AppError(ErrorCode.forbidden, "you requested this task's Stop: another person must approve its compensation (maker-checker)", {
      requestedBy: task.cancelRequestedBy,
    });
  }
  // …and the same for a Stop of this one step (issue 13, a scoped Stop): it recorded who pressed it on the step.
  const step = effectStep(item);
  if (step?.stopRequestedBy && requestedTheStop({ cancelRequestedBy: step.stopRequestedBy, cancelRequestedById: step.stopRequestedById ?? null }, principal)) {
    throw new AppError(ErrorCode.forbidden, "you stopped this step: another person must approve its compensation (maker-checker)", {
      requestedBy: step.stopRequestedBy,
    });
  }
  const effect = item.sideEffect;
  const tool = registry.get(effect.workItem.toolName);
  if (!tool?.compensate || !tool.inspect)
    throw new AppError(ErrorCode.unavailable, `tool ${effect.workItem.toolName} cannot compensate in this process`, { tool: effect.workItem.toolName });

  // Bounded: a person waits on this request, and nothing is done until the service has said where the record stands.
  const asked = await answerWithin(() => tool.inspect!(refOf(effect.workItem, effect)), SERVICE_ANSWER_MS);
  if (!asked.ok)
    throw new AppError(
      ErrorCode.unavailable,
      `${effect.workItem.toolName} did not say where the record stands (${asked.error.message}): nothing was done; try again`,
      {
        tool: effect.workItem.toolName,
        retryAfterSeconds: 5,
      },
    );
  const current = asked.value;
  // The record's version NOW (inspect's externalVersion is the version the agent's write produced).
  const currentVersion = current.status === "committed" ? (current.currentVersion ?? current.externalVersion ?? null) : null;
  if (current.status !== "committed" || currentVersion !== proposal.expectedVersion) {
    const editors = current.status === "committed" ? ((current.evidence as { editedBy?: string[] } | undefined)?.editedBy ?? []) : [];
    const detail =
      current.status === "committed"
        ? `record ${proposal.target} is now at version ${currentVersion}, not ${proposal.expectedVersion} (the version the agent's write produced): ${editors.length ? `${editors.join(", ")} changed it since` : "someone else changed it"}; nothing was overwritten`
        : `the service reports the record as ${current.status}; nothing was done`;
    // What the service says now is kept on the side effect with the escalation (one transaction): the card then shows
    // what changed — the agent's version, the current one, who changed it, their writes — and stops offering approval.
    const evidence =
      current.status === "committed"
        ? { ...((effect.evidence as Record<string, unknown> | null) ?? {}), ...(current.evidence ?? {}), currentVersion, checkedAt: new Date().toISOString() }
        : null;
    await escalate(
      database,
      item.id,
      item.taskId,
      item.workItemId,
      item.status,
      actor,
      detail,
      evidence ? { id: effect.id, rowVersion: effect.rowVersion, evidence } : undefined,
    );
    throw new AppError(ErrorCode.conflict, detail, { currentVersion, expectedVersion: proposal.expectedVersion });
  }

  await decide(ReviewItemStatus.approved, LedgerEvent.reviewItemApproved);
  const ref: EffectRef = {
    id: effect.id,
    workItemId: effect.workItemId,
    operationId: effect.operationId,
    externalRecordId: effect.externalRecordId,
    externalVersion: effect.externalVersion,
    description: effect.description,
  };
  // Bounded too. A compensation that gives no answer in time may have restored the record all the same, so it reads
  // as unknown, never as failed; an error the service answered with (a 503) is a failure. Approving again is safe —
  // it asks the service first, and a record no longer at the agent's version is not touched (a conflict).
  const answered = await answerWithin(() => tool.compensate!(ref, proposal.expectedVersion), SERVICE_ANSWER_MS);
  const result: CompensationResult | { status: "unknown"; detail: string } = answered.ok
    ? answered.value
    : answered.error instanceof NoAnswerError
      ? {
          status: "unknown",
          detail: `${effect.workItem.toolName} gave no answer (${answered.error.message}): whether record ${proposal.target} was restored is not known; approving again asks the service first and changes nothing if it was`,
        }
      : { status: "failed", detail: answered.error.message };
  if (result.status === "compensated") {
    await writeLedger(database, async (w) => {
      await casUpdate(w, {
        entity: "sideEffect",
        id: effect.id,
        from: SideEffectOutcome.committed,
        to: SideEffectOutcome.compensated,
        event: {
          taskId: item.taskId,
          workItemId: effect.workItemId,
          actor,
          type: LedgerEvent.sideEffectCompensated,
          reason: result.detail ?? "compensation executed",
        },
      });
      await casUpdate(w, {
        entity: "reviewItem",
        id: item.id,
        from: ReviewItemStatus.approved,
        to: ReviewItemStatus.resolved,
        event: { taskId: item.taskId, workItemId: item.workItemId, actor, type: LedgerEvent.reviewItemResolved, reason: "compensation executed" },
      });
    });
    return { status: ReviewItemStatus.resolved, compensation: { status: "compensated", detail: result.detail ?? "compensation executed" } };
  }
  const reason = result.status === "unknown" ? `compensation outcome unknown: ${result.detail}` : `compensation ${result.status}: ${result.detail}`;
  await escalate(database, item.id, item.taskId, item.workItemId, ReviewItemStatus.approved, actor, reason);
  return { status: ReviewItemStatus.escalated, compensation: { status: result.status, detail: result.detail } };
}

/**
 * Did this principal request the task's Stop? By the stable id recorded with the boundary (person id or token
 * id). A boundary recorded without one (before ids were recorded, or by in-process code) is compared by the
 * name after the role — an account's e-mail address, a token's name — so a changed role never slips through;
 * two tokens that share a name are then treated as one (the safe direction).
 */
export function requestedTheStop(task: { cancelRequestedBy: string | null; cancelRequestedById: string | null }, principal: Principal): boolean {
  if (task.cancelRequestedById) return task.cancelRequestedById === principalRef(principal);
  if (!task.cancelRequestedBy) return false;
  const name = task.cancelRequestedBy.slice(task.cancelRequestedBy.indexOf(":") + 1);
  return name === principal.name;
}

/**
 * Did this principal ask for this review item (a reversal request records its requester as `role:name`)? By
 * the name after the role, like requestedTheStop without a stable id: a changed role never slips through.
 */
export function requestedTheReversal(item: { requestedBy: string | null }, principal: Principal): boolean {
  if (!item.requestedBy || item.requestedBy.startsWith("system:")) return false;
  return item.requestedBy.slice(item.requestedBy.indexOf(":") + 1) === principal.name;
}

async function escalate(
  database: Database,
  id: string,
  taskId: string,
  workItemId: string | null,
  from: string,
  actor: string,
  reason: string,
  conflict?: { id: string; rowVersion: number; evidence: Record<string, unknown> },
) {
  await writeLedger(database, async (w) => {
    const event = { taskId, workItemId, actor, type: LedgerEvent.reviewItemEscalated, reason, ...(conflict ? { data: { conflict: conflict.evidence } } : {}) };
    // Guarded by the row version read: evidence written meanwhile by reconciliation is not overwritten.
    if (conflict)
      await w.tx.sideEffect.updateMany({
        where: { id: conflict.id, rowVersion: conflict.rowVersion },
        data: { evidence: conflict.evidence as never, rowVersion: { increment: 1 } },
      });
    // Already escalated: the new reason is still recorded.
    if (from === ReviewItemStatus.escalated) return w.event({ ...event, entityType: "reviewItem", entityId: id });
    await casUpdate(w, { entity: "reviewItem", id, from, to: ReviewItemStatus.escalated, event });
  });
}

/** The step whose effect a review item is about (its side effect's work item), with who stopped it, if anyone. */
function effectStep(item: { sideEffect?: { workItem?: { stopRequestedBy?: string | null; stopRequestedById?: string | null } | null } | null }) {
  return item.sideEffect?.workItem ?? null;
}
