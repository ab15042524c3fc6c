"use client";

import { useEventStream, type LiveState, type StreamHandlers } from "@/components/use-event-stream";
import type { LedgerEventRecord } from "./api";

/** One task's ledger events (GET /api/tasks/{id}/events) while mounted: its history from the start, then live. */
export function useTaskStream(taskId: string, handlers: StreamHandlers<LedgerEventRecord>): LiveState {
  return useEventStream(`/api/tasks/${encodeURIComponent(taskId)}/events`, handlers, { fromStart: true });
}
