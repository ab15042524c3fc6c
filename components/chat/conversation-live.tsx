"use client";

import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import type { LiveState } from "@/components/use-event-stream";
import { applyToTask } from "@/components/data/apply-ledger-event";
import { chatKeys, type LedgerEventRecord, type Summary, type TaskDetail, type TaskRow } from "./api";
import { itemLook, toolLabel } from "./labels";
import { useTaskStream } from "./use-task-stream";

/** The conversation's live side: a stream per changing task, the one reducer, refetches, announcements. */

export function TaskSubscriber({
  taskId,
  onEvent,
  onState,
}: {
  taskId: string;
  onEvent: (taskId: string, event: LedgerEventRecord) => void;
  onState: (taskId: string, state: LiveState | null) => void;
}) {
  const queryClient = useQueryClient();
  useTaskStream(taskId, {
    onEvent: (event) => onEvent(taskId, event),
    // Whatever happened while the stream was down (or before it opened) is fetched.
    onOpen: () => {
      void queryClient.invalidateQueries({ queryKey: chatKeys.task(taskId) });
      void queryClient.invalidateQueries({ queryKey: chatKeys.summary(taskId) });
    },
    // A refused stream (e.g. 401 once the session ended): a plain request tells the page why.
    onGiveUp: () => void queryClient.invalidateQueries({ queryKey: chatKeys.task(taskId) }),
    onState: (state) => onState(taskId, state),
  });
  useEffect(() => () => onState(taskId, null), [taskId, onState]);
  return null;
}

export function patchTask(queryClient: QueryClient, taskId: string, patch: (t: TaskDetail) => TaskDetail) {
  queryClient.setQueryData<TaskDetail>(chatKeys.task(taskId), (t) => (t ? patch(t) : t));
}

/**
 * A status change shows at once; the refetch that follows brings the rest (results, resources, times).
 * The stream replays the task's history when it opens: an event older than the row already loaded is
 * not applied (it would flash a past state), it only triggers the refetch.
 */
export function patchFromEvent(queryClient: QueryClient, taskId: string, event: LedgerEventRecord) {
  patchTask(queryClient, taskId, (t) => applyToTask(t, event));
}

/** One refetch per task for a burst of events. */
export function useRefetchSoon(queryClient: QueryClient, delayMs = 120) {
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);
  return useCallback(
    (taskId: string) => {
      if (timers.current.has(taskId)) return;
      timers.current.set(
        taskId,
        setTimeout(() => {
          timers.current.delete(taskId);
          void queryClient.invalidateQueries({ queryKey: chatKeys.task(taskId) });
          void queryClient.invalidateQueries({ queryKey: chatKeys.summary(taskId) });
        }, delayMs),
      );
    },
    [queryClient, delayMs],
  );
}

export function aggregate(states: LiveState[]): LiveState {
  if (states.includes("reconnecting")) return "reconnecting";
  if (states.includes("connecting")) return "connecting";
  return "live";
}

/**
 * Compares what is shown with what was shown before and announces the differences: a step's new status,
 * a summary that arrived or changed. The first load is not news.
 */
export function useChangeAnnouncements(
  tasks: TaskRow[],
  details: Map<string, TaskDetail | undefined>,
  summaries: Map<string, Summary | null | undefined>,
  loaded: boolean,
  announce: (text: string) => void,
) {
  const previous = useRef<Map<string, string> | null>(null);
  const current = new Map<string, string>();
  const labels = new Map<string, string>();
  for (const t of tasks) {
    const d = details.get(t.id);
    for (const i of d?.workItems ?? []) {
      current.set(i.id, i.status);
      labels.set(i.id, toolLabel(i.toolName));
    }
    const s = summaries.get(t.id);
    if (s) {
      current.set(`summary:${t.id}`, `${s.status}|${s.user_message}`);
      labels.set(`summary:${t.id}`, s.status === "IN_PROGRESS" ? "Stop under way" : "Stop finished");
    }
  }
  const key = [...current].map(([k, v]) => `${k}=${v}`).join(";");
  useEffect(() => {
    if (!loaded) return;
    const before = previous.current;
    previous.current = current;
    if (!before) return;
    const messages: string[] = [];
    for (const [id, value] of current) {
      if (before.get(id) === value) continue;
      if (id.startsWith("summary:")) messages.push(`${labels.get(id)}: ${value.split("|")[1]}`);
      else messages.push(`${labels.get(id)}: ${itemLook(value).label}.`);
    }
    if (messages.length) announce(messages.slice(-3).join(" "));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- key stands for current's contents
  }, [key, loaded]);
}
