"use client";

import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api-client";
import type { ReviewItem } from "@/components/console/detail/types";
import { QueryKeys } from "./query-keys";

export const fetchReviewItems = (signal?: AbortSignal) => apiFetch<{ reviewItems: ReviewItem[] }>("/api/review-items", { signal });

/** Every review item (open first by deadline, then decided), shared by the review queue, the nav and the task list. */
export function useReviewItems(options: { enabled?: boolean; refetchInterval?: number } = {}) {
  return useQuery({ queryKey: QueryKeys.reviewItems, queryFn: ({ signal }) => fetchReviewItems(signal), ...options });
}
