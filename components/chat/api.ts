import type { z } from "zod";
import type { CancelResponseSchema, CancellationSummarySchema, ConfirmationSchema, TaskDetailSchema, TaskListSchema, TurnSchema } from "@/lib/api/schemas";

// Types only: the chat trusts its own API's contract and ships no zod to the browser.
export type TaskList = z.output<typeof TaskListSchema>;
export type TaskRow = TaskList["tasks"][number];
export type TaskDetail = z.output<typeof TaskDetailSchema>;
export type WorkItem = TaskDetail["workItems"][number];
export type Resource = TaskDetail["resources"][number];
export type SideEffect = TaskDetail["sideEffects"][number];
export type ReviewItem = TaskDetail["reviewItems"][number];
export type Summary = z.output<typeof CancellationSummarySchema>;
export type Turn = z.output<typeof TurnSchema>;
export type CancelResponse = z.output<typeof CancelResponseSchema>;
export type Confirmation = z.output<typeof ConfirmationSchema>;
export type { LedgerEventRecord } from "@/lib/api/event-schemas";

/** The demo agent's proposals, as the API serves them (lib/agent/conversation.ts ProposalSchema). */
export type OrderProposal = { type: "order"; items: { sku: string; quantity: number; unitCents: number }[]; amountCents: number };
export type RecordProposal = { type: "record_and_email"; name: string; email: string; subject: string; body: string };
export type Proposal = OrderProposal | RecordProposal;

/** Narrows the API's free-form proposal JSON to a shape this page knows how to show; null otherwise. */
export function asProposal(value: unknown): Proposal | null {
  if (!value || typeof value !== "object") return null;
  const p = value as Record<string, unknown>;
  if (p.type === "order" && Array.isArray(p.items) && typeof p.amountCents === "number") return p as unknown as OrderProposal;
  if (p.type === "record_and_email" && typeof p.name === "string" && typeof p.email === "string") return p as unknown as RecordProposal;
  return null;
}

import { ApiError, apiFetch as chatFetch } from "@/components/api-client";
import { QueryKeys } from "@/components/data/query-keys";
export { ApiError as ChatApiError, chatFetch };
export { asSentence, isUnauthorized } from "@/components/api-client";

export { isTransient } from "@/components/data/stop-client";
import { sendStop, withStopRetries } from "@/components/data/stop-client";

// ---- query keys and reads -------------------------------------------------------------------------

/** The chat's query keys — the shared table's entries (components/data/query-keys.ts). */
export const chatKeys = {
  all: QueryKeys.chat,
  conversations: QueryKeys.conversations,
  conversation: QueryKeys.conversation,
  task: QueryKeys.chatTask,
  summary: QueryKeys.summary,
};

export const fetchConversationTasks = (conversationId: string, signal?: AbortSignal) =>
  chatFetch<TaskList>(`/api/tasks?${new URLSearchParams({ conversationId, limit: "200" })}`, { signal });

export const fetchRecentTasks = (signal?: AbortSignal) => chatFetch<TaskList>("/api/tasks?limit=200", { signal });

export const fetchTask = (taskId: string, signal?: AbortSignal) => chatFetch<TaskDetail>(`/api/tasks/${encodeURIComponent(taskId)}`, { signal });

/** The cancellation summary; null while no Stop is recorded (the API answers 404 then). */
export async function fetchSummary(taskId: string, signal?: AbortSignal): Promise<Summary | null> {
  try {
    return await chatFetch<Summary>(`/api/tasks/${encodeURIComponent(taskId)}/cancellation`, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

// ---- writes -----------------------------------------------------------------------------------------

/** A message, named by the turn id this page chose for it: a Stop can name the turn before the answer arrives. */
export const sendMessage = (conversationId: string, text: string, turnId: string) =>
  chatFetch<Turn>(`/api/conversations/${encodeURIComponent(conversationId)}/messages`, { method: "POST", body: { text, turnId } });

/**
 * Stop a turn by its id — also before the agent's task exists (pressed right after Enter): the task is then
 * born stopped and nothing of it starts. Idempotent like every Stop, so it is safely sent again (the one Stop client).
 */
export const stopTurn = (conversationId: string, turnId: string, text: string, attempts = 4): Promise<CancelResponse> =>
  withStopRetries(
    () =>
      chatFetch<CancelResponse>(`/api/conversations/${encodeURIComponent(conversationId)}/turns/${encodeURIComponent(turnId)}/cancel`, {
        method: "POST",
        body: { reason: "the person pressed Stop in the chat", text },
      }),
    attempts,
  );

export const confirmProposal = (taskId: string, proposalVersion: number) =>
  chatFetch<Confirmation>(`/api/tasks/${encodeURIComponent(taskId)}/proposal/confirm`, { method: "POST", body: { proposalVersion } });

/** Stop, through the one Stop client (components/data/stop-client.ts: idempotent, retried on a transient failure). */
export const stopTask = (taskId: string, attempts = 4): Promise<CancelResponse> => sendStop(taskId, "the person pressed Stop in the chat", attempts);
