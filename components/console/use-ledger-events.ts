"use client";

import { useEventStream, type LiveState, type StreamHandlers } from "@/components/use-event-stream";
import type { LedgerEventRecord } from "./api";

export type { LiveState };

/**
 * The whole ledger, from the present on (GET /api/events), for as long as the component is mounted.
 * `enabled: false` closes the stream (e.g. once the session ended); true opens it again.
 */
export function useLedgerEvents(handlers: StreamHandlers<LedgerEventRecord> & { enabled?: boolean }): LiveState {
  return useEventStream(handlers.enabled === false ? null : "/api/events", handlers);
}
