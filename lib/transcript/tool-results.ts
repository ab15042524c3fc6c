import { childFacts, stopFacts, type TaskLike, type WorkItemLike } from "../outcomes/facts";
import { OutcomeKind, type ChildOutcome } from "../outcomes/child-outcome";
import { toolResult } from "../outcomes/tool-result-text";
import { utcFormat, type WordsFormat } from "../outcomes/words";

/**
 * Each tool call of a task, with the result an agent's model should read for it — written from the ledger's facts
 * (lib/outcomes toolResultText), keyed by the call's id as the agent named it (the work item's correlation id: the
 * AI SDK's toolCallId, the demo agent's correlation id). Pure: it runs on database rows (the demo agent) and on the
 * HTTP API's task detail (the SDK's repairToolResults), so both read the same words.
 */
export interface ToolCallTruth {
  toolCallId: string;
  workItemId: string;
  toolName: string;
  input: unknown;
  /** What the model reads as this call's result. */
  text: string;
  outcome: ChildOutcome;
  /** The Stop reached this call: it was stopped, could not be, took effect anyway, or is still being found out. */
  touchedByStop: boolean;
  /** What the call returned, when it completed (the model may need it; it is not the ledger's verdict). */
  result: unknown;
}

export interface TaskRows extends TaskLike {
  workItems: (WorkItemLike & { toolName: string; correlationId: string; input?: unknown; result?: unknown })[];
  sideEffects: (TaskLike["sideEffects"][number] & { description: string | null; externalRecordId: string | null })[];
}

export function toolCallTruths(task: TaskRows, now: number, f: WordsFormat = utcFormat): ToolCallTruth[] {
  const stop = stopFacts(task);
  const related = { sideEffects: task.sideEffects, reviewItems: task.reviewItems, resources: task.resources };
  return task.workItems.map((item) => {
    const { text, outcome } = toolResult(
      { child: childFacts(item, related, now), stop, partialResult: item.partialResult, effects: task.sideEffects.filter((e) => e.workItemId === item.id) },
      f,
    );
    // Work that finished before the Stop keeps its own result; every other call of a stopped task is the Stop's.
    const touchedByStop = stop.requestedAt !== null && outcome.kind !== OutcomeKind.completedBeforeStop;
    return {
      toolCallId: item.correlationId,
      workItemId: item.id,
      toolName: item.toolName,
      input: item.input ?? null,
      text,
      outcome,
      touchedByStop,
      result: item.result ?? null,
    };
  });
}
