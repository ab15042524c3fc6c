"use client";

import { useEffect, useRef, useState } from "react";

export type LiveState = "connecting" | "live" | "reconnecting";

/** One ledger event as the SSE routes send it (`event: ledger`, `id: <seq>`). */
export interface StreamEvent {
  seq: number;
}

export interface StreamHandlers<E extends StreamEvent> {
  onEvent: (event: E) => void;
  /** Every (re)connection: whatever happened while disconnected may need a refetch. */
  onOpen?: () => void;
  /**
   * The browser gave up on the stream: the server answered with an error status (which EventSource does not
   * reveal — a plain request can tell, e.g. a 401 once the session ended) or was down.
   */
  onGiveUp?: () => void;
  onState?: (state: LiveState) => void;
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * Follows one of the ledger's event streams (GET /api/events, GET /api/tasks/{id}/events) while mounted and
 * `url` is not null. While the stream is open the browser resumes by itself after a drop (Last-Event-ID), so
 * no event is lost; when it gives up, a new EventSource resumes after the last sequence seen, slower each
 * time. An event seen twice (a resume that overlaps) is delivered once.
 */
export function useEventStream<E extends StreamEvent>(url: string | null, handlers: StreamHandlers<E>): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });

  useEffect(() => {
    if (url === null) return;
    let source: EventSource | null = null;
    let lastSeq: number | null = null;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const report = (s: LiveState) => {
      setState(s);
      ref.current.onState?.(s);
    };
    report("connecting");

    const connect = () => {
      if (disposed) return;
      source = new EventSource(lastSeq === null ? url : `${url}${url.includes("?") ? "&" : "?"}lastEventId=${lastSeq}`);
      source.onopen = () => {
        attempt = 0;
        report("live");
        ref.current.onOpen?.();
      };
      source.addEventListener("ledger", (message) => {
        try {
          const event = JSON.parse(message.data) as E;
          if (lastSeq !== null && event.seq <= lastSeq) return; // the stream is in sequence order: already seen
          lastSeq = event.seq;
          ref.current.onEvent(event);
        } catch (error) {
          console.error("could not handle a ledger event", error);
        }
      });
      source.onerror = () => {
        report("reconnecting");
        // CONNECTING: the browser retries on its own (the server asks for retry: 1000). CLOSED: it gave up.
        if (source?.readyState === EventSource.CLOSED) {
          source.close();
          ref.current.onGiveUp?.();
          timer = setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]);
        }
      };
    };

    connect();
    return () => {
      disposed = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [url]);

  return state;
}
