"use client";

import { useQuery } from "@tanstack/react-query";
import { apiFetch, isUnauthorized } from "@/components/api-client";
import type { ChannelList } from "@/components/console/escalations/types";
import { QueryKeys } from "./query-keys";

/** The escalation channels with their health (from the delivery log): the escalations page and the nav. */
export function useEscalationChannels(options: { enabled?: boolean; refetchInterval?: number } = {}) {
  const { refetchInterval, ...rest } = options;
  return useQuery({
    queryKey: QueryKeys.escalationChannels,
    queryFn: ({ signal }) => apiFetch<ChannelList>("/api/escalation-channels", { signal }),
    refetchInterval: (query) => (isUnauthorized(query.state.error) ? false : (refetchInterval ?? false)),
    refetchIntervalInBackground: false,
    ...rest,
  });
}
