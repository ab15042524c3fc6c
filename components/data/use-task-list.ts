"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { fetchTaskPage } from "@/components/console/api";
import { QueryKeys } from "./query-keys";

/** The task list, newest first, a page at a time ("Load older tasks"). */
export function useTaskList() {
  return useInfiniteQuery({
    queryKey: QueryKeys.tasks,
    queryFn: ({ pageParam, signal }) => fetchTaskPage(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
