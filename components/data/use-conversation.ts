"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import { fetchConversationTasks, fetchSummary, fetchTask, type Summary } from "@/components/chat/api";
import { QueryKeys } from "./query-keys";

/** A conversation's tasks (newest first, as the API lists them). */
export const useConversation = (conversationId: string) =>
  useQuery({ queryKey: QueryKeys.conversation(conversationId), queryFn: ({ signal }) => fetchConversationTasks(conversationId, signal) });

/** Each task's detail, as the chat follows it. */
export const useChatTasks = (taskIds: string[]) =>
  useQueries({ queries: taskIds.map((id) => ({ queryKey: QueryKeys.chatTask(id), queryFn: ({ signal }: { signal: AbortSignal }) => fetchTask(id, signal) })) });

/** Each stopped task's cancellation summary; re-read every 3 s only while it is IN_PROGRESS (the streams trigger the rest). */
export const useSummaries = (taskIds: string[]) =>
  useQueries({
    queries: taskIds.map((id) => ({
      queryKey: QueryKeys.summary(id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchSummary(id, signal),
      refetchInterval: (q: { state: { data?: Summary | null } }) => (q.state.data?.status === "IN_PROGRESS" ? 3_000 : false),
    })),
  });
