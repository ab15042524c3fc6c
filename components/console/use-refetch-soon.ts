"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";

/**
 * One refetch of `keys` for a burst of ledger events: the first event schedules it, the ones that arrive
 * before it runs ride along, and the ones that arrive while it runs schedule the next.
 */
export function useRefetchSoon(keys: readonly QueryKey[], delayMs = 150): () => void {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latestKeys = useRef(keys);
  useEffect(() => {
    latestKeys.current = keys;
  });
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
  return useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      for (const queryKey of latestKeys.current) void queryClient.invalidateQueries({ queryKey });
    }, delayMs);
  }, [queryClient, delayMs]);
}
