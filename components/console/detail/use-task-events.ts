"use client";

import { useEffect, useRef, useState } from "react";
import type { LedgerEvent } from "../api";
import type { LiveState } from "../use-ledger-events";

/**
 * The task's whole ledger history, then every new event, from GET /api/tasks/{id}/events (it replays from
 * the start). The browser resumes after a drop with Last-Event-ID; when it gives up, we reopen from the
 * last sequence seen. Events are kept in sequence order without duplicates.
 */
export function useTaskEvents(taskId: string, onEvent: (event: LedgerEvent) => void, enabled = true) {
  const [events, setEvents] = useState<LedgerEvent[]>([]);
  const [state, setState] = useState<LiveState>("connecting");
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });

  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let lastSeq = 0;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const seen = new Set<number>();
    let buffer: LedgerEvent[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;

    const connect = () => {
      if (disposed) return;
      source = new EventSource(`/api/tasks/${encodeURIComponent(taskId)}/events${lastSeq ? `?lastEventId=${lastSeq}` : ""}`);
      source.onopen = () => {
        attempt = 0;
        setState("live");
      };
      source.addEventListener("ledger", (message) => {
        try {
          const event = JSON.parse(message.data) as LedgerEvent;
          if (seen.has(event.seq)) return;
          seen.add(event.seq);
          lastSeq = Math.max(lastSeq, event.seq);
          buffer.push(event);
          handler.current(event);
          // The replay can be hundreds of events: render them in one go.
          flush ??= setTimeout(() => {
            flush = undefined;
            const batch = buffer;
            buffer = [];
            setEvents((prev) => [...prev, ...batch].sort((a, b) => a.seq - b.seq));
          }, 30);
        } catch (error) {
          console.error("could not handle a ledger event", error);
        }
      });
      source.onerror = () => {
        setState("reconnecting");
        if (source?.readyState === EventSource.CLOSED) {
          source.close();
          timer = setTimeout(connect, [1_000, 2_000, 5_000, 10_000][Math.min(attempt++, 3)]);
        }
      };
    };
    connect();
    return () => {
      disposed = true;
      clearTimeout(timer);
      clearTimeout(flush);
      source?.close();
    };
  }, [taskId, enabled]);

  return { events, state };
}
