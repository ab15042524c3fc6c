"use client";

import { useEffect, useRef, useState } from "react";
import type { LiveState } from "@/components/console/use-ledger-events";
import type { LedgerEvent } from "./api";

interface Handlers {
  onEvent: (event: LedgerEvent) => void;
  /** Every (re)connection: what happened while disconnected is fetched again. */
  onOpen?: () => void;
  /** The browser gave up on the stream (an error status, e.g. 401 once the session ended). */
  onGiveUp?: () => void;
  onState?: (state: LiveState) => void;
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * Subscribes to one task's ledger events (GET /api/tasks/{id}/events) while mounted. The stream replays
 * the task's history from the start, then follows it live. The browser resumes a dropped stream by itself
 * (Last-Event-ID); when it gives up, a new EventSource resumes after the last sequence seen.
 */
export function useTaskStream(taskId: string, handlers: Handlers): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });

  useEffect(() => {
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
      const base = `/api/tasks/${encodeURIComponent(taskId)}/events`;
      source = new EventSource(lastSeq === null ? base : `${base}?lastEventId=${lastSeq}`);
      source.onopen = () => {
        attempt = 0;
        report("live");
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
        report("reconnecting");
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
  }, [taskId]);

  return state;
}
