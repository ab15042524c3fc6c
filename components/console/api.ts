import type { z } from "zod";
import type { SessionSchema, TaskListSchema } from "@/lib/api/schemas";

// Types only: the console trusts its own API's contract and ships no zod to the browser.
export type TaskList = z.output<typeof TaskListSchema>;
export type TaskRow = TaskList["tasks"][number];
export type { LedgerEventRecord } from "@/lib/api/event-schemas";
export type Session = z.output<typeof SessionSchema>;

import { ApiError, apiFetch } from "@/components/api-client";
import { QueryKeys } from "@/components/data/query-keys";
export { ApiError, apiFetch };
export { asSentence, isUnauthorized } from "@/components/api-client";

export const TASKS_KEY = QueryKeys.tasks;
export const TASK_PAGE_SIZE = 100;

export function fetchTaskPage(before: string | null, signal?: AbortSignal) {
  const params = new URLSearchParams({ limit: String(TASK_PAGE_SIZE) });
  if (before) params.set("before", before);
  return apiFetch<TaskList>(`/api/tasks?${params}`, { signal });
}
