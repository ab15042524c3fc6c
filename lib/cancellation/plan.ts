import { z } from "zod";
import { Mechanism, WorkItemStatus } from "../ledger/states";

/**
 * A cancellation plan: one action per active work item. The rule-based planner (DESIGN.md's stop matrix)
 * makes one; a model may propose one (model-planner.ts), which is only used if it passes validatePlan.
 * Whatever the plan says, the executor still stops queued items and runs the verification gate: a plan
 * chooses HOW each child is stopped, never WHETHER Stop is honoured (invariant 10).
 */
export const PlanAction = {
  abort: "abort",
  awaitPartial: "await_partial",
  rollback: "rollback",
  notify: "notify",
  noop: "noop",
} as const;
export type PlanAction = (typeof PlanAction)[keyof typeof PlanAction];
export const PLAN_ACTIONS = Object.values(PlanAction) as [PlanAction, ...PlanAction[]];

/** What the planner is told about each active child (the seed's ACTIVE_TOOL_CALLS). */
export interface ActiveToolCall {
  /** The work item id: the plan must name each exactly once. */
  id: string;
  tool: string;
  kind: string;
  /** Ledger status (queued, running, submitted, cancelling, unrecoverable, uncertain). */
  status: string;
  /** The seed's coarse status for the prompt. */
  phase: "queued" | "in_flight" | "partial_result_received" | "awaiting_callback";
  mechanism: string;
  commitsEffect: boolean;
  supportsRollback: boolean;
  started_at: string | null;
  partial_result: unknown;
}

export const PlanStepSchema = z.strictObject({
  tool_call_id: z.string().min(1),
  action: z.enum(PLAN_ACTIONS),
  cleanup_steps: z.array(z.string().min(1).max(500)).max(20),
  user_message: z.string().min(1).max(500),
});
export const PlanSchema = z.strictObject({ actions: z.array(PlanStepSchema) });
export type PlanStep = z.infer<typeof PlanStepSchema>;

export interface CancellationPlan {
  source: "rules" | "model";
  steps: PlanStep[];
  /** Why the rule-based plan was used instead of a model's (when a model was asked). */
  fallbackReason?: string;
}

export const phaseOf = (status: string, partial: unknown): ActiveToolCall["phase"] =>
  status === WorkItemStatus.queued
    ? "queued"
    : status === WorkItemStatus.submitted || status === WorkItemStatus.uncertain
      ? "awaiting_callback"
      : partial != null
        ? "partial_result_received"
        : "in_flight";

/**
 * The actions a plan may choose for a child, from how it can actually be stopped. A queued child can only
 * be removed from dispatch (abort) — never left to start; a child that cannot be stopped can only be
 * reported (notify).
 */
export function allowedActions(call: ActiveToolCall): PlanAction[] {
  if (call.status === WorkItemStatus.queued) return [PlanAction.abort];
  if (call.status === WorkItemStatus.unrecoverable) return [PlanAction.notify];
  if (call.status === WorkItemStatus.uncertain || call.status === WorkItemStatus.submitted) {
    // Accepted by an external service: reconcile (abort = ask the provider to cancel, then inspect).
    return call.supportsRollback ? [PlanAction.abort, PlanAction.rollback, PlanAction.notify] : [PlanAction.abort, PlanAction.notify];
  }
  switch (call.mechanism) {
    case Mechanism.none:
      return [PlanAction.notify];
    case Mechanism.rollback:
      return [PlanAction.rollback, PlanAction.abort];
    default:
      return [PlanAction.abort, PlanAction.awaitPartial];
  }
}

/** The stop matrix as a plan. */
export function rulePlan(calls: ActiveToolCall[]): CancellationPlan {
  return {
    source: "rules",
    steps: calls.map((call) => {
      const action = ruleAction(call);
      return { tool_call_id: call.id, action, cleanup_steps: cleanupSteps(call, action), user_message: ruleMessage(call, action) };
    }),
  };
}

function ruleAction(call: ActiveToolCall): PlanAction {
  if (call.status === WorkItemStatus.queued) return PlanAction.abort;
  if (call.status === WorkItemStatus.unrecoverable || call.mechanism === Mechanism.none) return PlanAction.notify;
  if (call.mechanism === Mechanism.rollback && call.supportsRollback && call.status !== WorkItemStatus.uncertain) return PlanAction.rollback;
  if (call.phase === "partial_result_received") return PlanAction.awaitPartial;
  return PlanAction.abort;
}

function cleanupSteps(call: ActiveToolCall, action: PlanAction): string[] {
  if (call.status === WorkItemStatus.queued) return ["remove from dispatch"];
  const steps = [];
  if (action === PlanAction.abort || action === PlanAction.awaitPartial) steps.push(`stop through ${call.mechanism}`);
  if (action === PlanAction.rollback) steps.push("call the rollback tool with the original request and tool call ids");
  steps.push("release and verify every resource the call holds");
  if (call.commitsEffect) steps.push("reconcile the external action by its operation id");
  return steps;
}

function ruleMessage(call: ActiveToolCall, action: PlanAction): string {
  switch (action) {
    case PlanAction.abort:
      return call.status === WorkItemStatus.queued ? `${call.tool} will not start.` : `Stopping ${call.tool}.`;
    case PlanAction.awaitPartial:
      return `Stopping ${call.tool} and keeping its partial result if it is complete.`;
    case PlanAction.rollback:
      return `Rolling back ${call.tool}.`;
    case PlanAction.notify:
      return `${call.tool} cannot be stopped; it is being watched until it ends.`;
    case PlanAction.noop:
      return `${call.tool} needs nothing.`;
  }
}

/**
 * Checks a proposed plan against the active children: every child exactly once, no unknown ids, only
 * actions allowed for that child. Returns the problems (empty when valid).
 */
export function validatePlan(plan: unknown, calls: ActiveToolCall[]): { plan: PlanStep[] | null; errors: string[] } {
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) return { plan: null, errors: parsed.error.issues.map((i) => `${i.path.join(".") || "plan"}: ${i.message}`) };
  const errors: string[] = [];
  const byId = new Map(calls.map((c) => [c.id, c]));
  const seen = new Map<string, number>();
  for (const step of parsed.data.actions) {
    seen.set(step.tool_call_id, (seen.get(step.tool_call_id) ?? 0) + 1);
    const call = byId.get(step.tool_call_id);
    if (!call) {
      errors.push(`${step.tool_call_id}: not an active tool call`);
      continue;
    }
    const allowed = allowedActions(call);
    if (!allowed.includes(step.action))
      errors.push(`${step.tool_call_id} (${call.tool}, ${call.status}): action "${step.action}" is not allowed; allowed: ${allowed.join(", ")}`);
  }
  for (const call of calls) {
    const n = seen.get(call.id) ?? 0;
    if (n === 0) errors.push(`${call.id} (${call.tool}): missing from the plan`);
    if (n > 1) errors.push(`${call.id} (${call.tool}): appears ${n} times; each tool call must appear exactly once`);
  }
  return { plan: errors.length ? null : parsed.data.actions, errors };
}
