"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api-client";
import type { TaskDetail } from "@/components/console/detail/types";
import { QueryKeys } from "./query-keys";

export const fetchTaskDetail = (taskId: string, signal?: AbortSignal) => apiFetch<TaskDetail>(`/api/tasks/${encodeURIComponent(taskId)}`, { signal });

/** One task with everything it owns (the console's task detail). A 4xx is not retried: it will not fix itself. */
export function useTask(taskId: string) {
  return useQuery({
    queryKey: QueryKeys.task(taskId),
    queryFn: ({ signal }) => fetchTaskDetail(taskId, signal),
    retry: (count, error) => !(error as { status?: number }).status?.toString().startsWith("4") && count < 2,
  });
}

/** Several tasks at once (the review queue's evidence), sharing the same cache entries as useTask. */
export function useTasks(taskIds: string[]) {
  return useQueries({
    queries: taskIds.map((id) => ({ queryKey: QueryKeys.task(id), queryFn: ({ signal }: { signal: AbortSignal }) => fetchTaskDetail(id, signal) })),
  });
}
