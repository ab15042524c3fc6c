import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { StoredProgress } from "../ledger/progress";
import { isTerminalTask, SideEffectOutcome } from "../ledger/states";
import { OUTCOME_WORDS, predict, previewHeadline, type OutcomeKind, type PreviewKind, type Tone } from "../outcomes";
import type { ToolRegistry } from "../tools/registry";
import type { CancellationPlan, PlanAction } from "./plan";
import { activeCallsOf, childrenToPlan, planFor } from "./plan-children";
import { alreadyFinishedMessage } from "./steps/1-record-boundary";

export interface StopPreviewChild {
  tool_call_id: string;
  work_item_id: string;
  tool_name: string;
  /** The plan's action for it (null: it has ended; the preview is about its effect). */
  action: PlanAction | null;
  preview: { kind: PreviewKind; headed_for: OutcomeKind; short: string; tone: Tone; sentence: string; subject: string; predicate: string };
}

export type StopPreview =
  | {
      task_id: string;
      state: "would_stop";
      /** Which planner the plan is from: the rules — the plan Stop records unless a model planner is configured. */
      plan_source: "rules";
      /** A model planner is configured in this process: it may choose another of each child's allowed actions. */
      model_may_advise: boolean;
      children: StopPreviewChild[];
      headline: string;
      computed_at: string;
    }
  | { task_id: string; state: "already_requested"; cancel_requested_at: string; headline: string; computed_at: string }
  | { task_id: string; state: "already_finished"; stage: string; headline: string; computed_at: string };

/**
 * What Stop would do to this task if pressed now — computed, never written (issue 13). The children and their
 * plan come from the same code the engine uses (plan-children.ts: same query, same planner view, same rule
 * plan), so the preview cannot disagree with the plan Stop then records (plan-preview.property.int.test.ts);
 * effects that already took place are predicted by the same rule as openReviewsForEffects: a reversible one with
 * a compensation → an operator is asked to approve reversing it; otherwise it cannot be undone.
 *
 * A configured model planner is not called for a preview (a hover must not cost a model call): the preview shows
 * the rules' plan and says that a model may advise another allowed action (`model_may_advise`).
 */
export async function previewStop(database: Database, registry: ToolRegistry, taskId: string, options: { modelPlanner?: boolean } = {}): Promise<StopPreview> {
  const task = await database.prisma.task.findUnique({ where: { id: taskId }, select: { id: true, stage: true, cancelRequestedAt: true } });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
  const nowDate = new Date();
  const now = nowDate.getTime();
  const computed_at = nowDate.toISOString();
  if (task.cancelRequestedAt) {
    return {
      task_id: task.id,
      state: "already_requested",
      cancel_requested_at: task.cancelRequestedAt.toISOString(),
      headline: "Stop was already pressed: pressing it again changes nothing.",
      computed_at,
    };
  }
  if (isTerminalTask(task.stage))
    return { task_id: task.id, state: "already_finished", stage: task.stage, headline: alreadyFinishedMessage(task.stage), computed_at };

  const { items } = await childrenToPlan(database, taskId, null);
  const plan: CancellationPlan = await planFor(activeCallsOf(items, registry));
  const actionOf = new Map(plan.steps.map((s) => [s.tool_call_id, s.action]));
  const children: StopPreviewChild[] = items.map((i) => {
    const progress = StoredProgress.safeParse(i.progress);
    const action = actionOf.get(i.id)!;
    const p = predict(
      { action, status: i.status, mechanism: i.mechanism, label: i.toolName, progress: progress.success ? progress.data : null, effect: null },
      now,
    );
    return {
      tool_call_id: i.correlationId,
      work_item_id: i.id,
      tool_name: i.toolName,
      action,
      preview: {
        kind: p.kind,
        headed_for: p.headedFor,
        short: OUTCOME_WORDS[p.headedFor].short,
        tone: p.tone,
        sentence: p.sentence,
        subject: p.subject,
        predicate: p.predicate,
      },
    };
  });

  // Effects that already took place: the engine's pass opens a review item for each (openReviewsForEffects).
  const effects = await database.prisma.sideEffect.findMany({
    where: { taskId, outcome: SideEffectOutcome.committed, workItem: { commitsEffect: true } },
    include: { workItem: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  for (const e of effects) {
    const tool = registry.get(e.workItem.toolName);
    const description = registry.describeEffect(e.workItem.toolName, e);
    const committedAt = (e.workItem.finishedAt ?? e.updatedAt).getTime();
    const p = predict(
      {
        action: null,
        status: e.workItem.status,
        mechanism: e.workItem.mechanism,
        label: e.workItem.toolName,
        progress: null,
        effect: { description, committedAt, reversible: e.reversible && !!tool?.compensate },
      },
      now,
    );
    children.push({
      tool_call_id: e.workItem.correlationId,
      work_item_id: e.workItemId,
      tool_name: e.workItem.toolName,
      action: null,
      preview: {
        kind: p.kind,
        headed_for: p.headedFor,
        short: OUTCOME_WORDS[p.headedFor].short,
        tone: p.tone,
        sentence: p.sentence,
        subject: p.subject,
        predicate: p.predicate,
      },
    });
  }
  return {
    task_id: task.id,
    state: "would_stop",
    plan_source: "rules",
    model_may_advise: !!options.modelPlanner,
    children,
    headline: previewHeadline(children.map((c) => c.preview.kind)),
    computed_at,
  };
}
