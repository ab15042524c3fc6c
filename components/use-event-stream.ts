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
   * reveal — a plain request can tell, e.g. a 401 once the session ended, or a 429 past the open-stream cap)
   * or was down.
   */
  onGiveUp?: () => void;
  onState?: (state: LiveState) => void;
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000];
/** How many recent event ids a connection remembers to drop a repeat (a resume that overlaps). */
const SEEN = 2_000;

type Listener = { handlers: () => StreamHandlers<StreamEvent>; setState: (s: LiveState) => void };

/**
 * One EventSource per URL per tab, shared by every component that follows that stream (the server caps open
 * streams per person: pages and panels must not each open their own). Events arrive in ledger order, which is
 * not always `seq` order (on PostgreSQL it is the order of the writing transactions): the resume point is the
 * last event received, and repeats are recognised by id, never by comparing sequence numbers.
 */
class SharedStream {
  readonly #url: string;
  readonly #listeners = new Set<Listener>();
  #source: EventSource | null = null;
  #lastId: number | null = null;
  readonly #seen = new Set<number>();
  /** Streams that replay from the start (a task's): what was received, for a component that joins later. */
  readonly #history: StreamEvent[] | null;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #state: LiveState = "connecting";

  constructor(url: string, fromStart: boolean) {
    this.#url = url;
    this.#history = fromStart ? [] : null;
  }

  add(listener: Listener) {
    this.#listeners.add(listener);
    listener.setState(this.#state);
    for (const event of this.#history ?? []) listener.handlers().onEvent(event);
    if (!this.#source && !this.#timer) this.#connect();
  }

  /** Returns true when nobody follows it any more (then it is closed). */
  remove(listener: Listener): boolean {
    this.#listeners.delete(listener);
    if (this.#listeners.size) return false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#source?.close();
    this.#source = null;
    return true;
  }

  #report(state: LiveState) {
    this.#state = state;
    for (const l of this.#listeners) {
      l.setState(state);
      l.handlers().onState?.(state);
    }
  }

  #connect() {
    this.#timer = undefined;
    const url = this.#lastId === null ? this.#url : `${this.#url}${this.#url.includes("?") ? "&" : "?"}lastEventId=${this.#lastId}`;
    const source = (this.#source = new EventSource(url));
    source.onopen = () => {
      this.#attempt = 0;
      this.#report("live");
      for (const l of this.#listeners) l.handlers().onOpen?.();
    };
    source.addEventListener("ledger", (message) => {
      try {
        const event = JSON.parse((message as MessageEvent<string>).data) as StreamEvent;
        if (this.#seen.has(event.seq)) return; // a resume that overlapped: already delivered
        this.#seen.add(event.seq);
        if (this.#seen.size > SEEN) this.#seen.delete(this.#seen.values().next().value!);
        this.#lastId = event.seq;
        this.#history?.push(event);
        for (const l of this.#listeners) l.handlers().onEvent(event);
      } catch (error) {
        console.error("could not handle a ledger event", error);
      }
    });
    source.onerror = () => {
      this.#report("reconnecting");
      // CONNECTING: the browser retries on its own (the server asks for retry: 1000, with Last-Event-ID).
      // CLOSED: it gave up; reconnect later, resuming after the last event received.
      if (source.readyState === EventSource.CLOSED && this.#source === source) {
        source.close();
        this.#source = null;
        for (const l of this.#listeners) l.handlers().onGiveUp?.();
        this.#timer = setTimeout(() => this.#connect(), RETRY_MS[Math.min(this.#attempt++, RETRY_MS.length - 1)]);
      }
    };
  }
}

const streams = new Map<string, SharedStream>();

/**
 * Follows one of the ledger's event streams (GET /api/events, GET /api/tasks/{id}/events) while mounted and
 * `url` is not null — through the tab's one connection for that URL. While the stream is open the browser
 * resumes by itself after a drop (Last-Event-ID), so no event is lost; when it gives up, a new connection
 * resumes after the last event received, slower each time. An event seen twice is delivered once.
 * `fromStart`: the URL replays its history from the start (a task's stream); a component that joins the shared
 * connection later is given that history first.
 */
export function useEventStream<E extends StreamEvent>(url: string | null, handlers: StreamHandlers<E>, options: { fromStart?: boolean } = {}): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });

  useEffect(() => {
    if (url === null) return;
    let stream = streams.get(url);
    if (!stream) streams.set(url, (stream = new SharedStream(url, options.fromStart ?? false)));
    const listener: Listener = { handlers: () => ref.current as unknown as StreamHandlers<StreamEvent>, setState };
    stream.add(listener);
    return () => {
      if (stream.remove(listener)) streams.delete(url);
    };
  }, [url]);

  return state;
}
