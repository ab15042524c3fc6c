"use client";

import { useEffect, useRef, useState } from "react";
import type { LedgerEvent } from "./api";

export type LiveState = "connecting" | "live" | "reconnecting";

interface Handlers {
  /** False closes the stream (e.g. once the session ended); true opens it again. Default true. */
  enabled?: boolean;
  onEvent: (event: LedgerEvent) => void;
  /** Called on every (re)connection: whatever happened while disconnected may need a refetch. */
  onOpen?: () => void;
  /**
   * Called when the browser gives up on the stream: it answered with an error status, which EventSource
   * does not reveal. A plain request can tell (e.g. a 401 once the session ended).
   */
  onGiveUp?: () => void;
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * Subscribes to GET /api/events (the whole ledger, from the present on) for as long as the component is
 * mounted. While the stream is open the browser resumes by itself after a drop, sending Last-Event-ID, so
 * no event is lost. When the browser gives up (the server answered with an error, e.g. 401 after the
 * session expired, or was down), a new EventSource resumes from the last seen sequence with `lastEventId`.
 */
export function useLedgerEvents(handlers: Handlers): LiveState {
  const enabled = handlers.enabled ?? true;
  const [state, setState] = useState<LiveState>("connecting");
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });

  useEffect(() => {
    if (!enabled) return;
    setState("connecting");
    let source: EventSource | null = null;
    let lastSeq: number | null = null;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;

    const connect = () => {
      if (disposed) return;
      source = new EventSource(lastSeq === null ? "/api/events" : `/api/events?lastEventId=${lastSeq}`);
      source.onopen = () => {
        attempt = 0;
        setState("live");
        ref.current.onOpen?.();
      };
      source.addEventListener("ledger", (message) => {
        const seq = Number(message.lastEventId);
        if (Number.isInteger(seq)) lastSeq = seq;
        try {
          ref.current.onEvent(JSON.parse(message.data) as LedgerEvent);
        } catch (error) {
          console.error("could not handle a ledger event", error);
        }
      });
      source.onerror = () => {
        setState("reconnecting");
        // CONNECTING: the browser retries on its own (the server asks for retry: 1000).
        // CLOSED: it gave up; try again ourselves, slower each time.
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
  }, [enabled]);

  return state;
}
