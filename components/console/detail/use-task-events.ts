"use client";

import { useEffect, useRef, useState } from "react";
import { useEventStream } from "@/components/use-event-stream";
import type { LedgerEventRecord } from "../api";

/**
 * The task's whole ledger history, then every new event (GET /api/tasks/{id}/events replays from the start),
 * kept in ledger order for the raw history. The stream itself — resume, retries, no duplicates — is
 * components/use-event-stream.ts.
 */
export function useTaskEvents(taskId: string, onEvent: (event: LedgerEventRecord) => void, enabled = true) {
  const [events, setEvents] = useState<LedgerEventRecord[]>([]);
  const buffer = useRef<LedgerEventRecord[]>([]);
  const flush = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(flush.current), []);

  const state = useEventStream<LedgerEventRecord>(
    enabled ? `/api/tasks/${encodeURIComponent(taskId)}/events` : null,
    {
      onEvent(event) {
        buffer.current.push(event);
        onEvent(event);
        // The replay can be hundreds of events: render them in one go.
        flush.current ??= setTimeout(() => {
          flush.current = undefined;
          const batch = buffer.current;
          buffer.current = [];
          setEvents((prev) => [...prev, ...batch]);
        }, 30);
      },
    },
    { fromStart: true },
  );
  return { events, state };
}
