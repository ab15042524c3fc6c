"use client";

import { useQueries, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConnectionStatus } from "@/components/console/connection-status";
import { fullTime, shortTime } from "@/components/console/format";
import type { LiveState } from "@/components/use-event-stream";
import { PROGRESS_EVENT } from "@/lib/ledger/progress";
import { TaskStage } from "@/lib/ledger/states";
import {
  asSentence,
  chatKeys,
  fetchConversationTasks,
  fetchSummary,
  fetchTask,
  isUnauthorized,
  sendMessage,
  stopTask,
  stopTurn,
  type LedgerEvent,
  type Summary,
  type TaskDetail,
  type TaskRow,
  type Turn,
} from "./api";
import { Composer } from "./composer";
import { applyToTask } from "@/components/data/apply-ledger-event";
import { itemLook, toolLabel } from "./labels";
import { changesSince, readSnapshot, writeSnapshot, type Change } from "./meanwhile";
import { SessionEnded } from "./session-ended";
import { AgentMark, TurnView, UserBubble } from "./turn";
import { isLive, isStoppable, isStopping, type StopRequest, type TurnFacts } from "./turn-state";
import { useTaskStream } from "./use-task-stream";

interface PendingMessage {
  /** The turn id sent with the message (its idempotency key): a Stop names the turn before its task exists. */
  id: string;
  text: string;
  state: "sending" | "failed";
  error?: string;
  /** Stop was pressed before the agent answered: recorded against the turn, so its task is born stopped. */
  stopOnArrival?: boolean;
}

const SUGGESTIONS = ["Export a report of 3000 rows", "Order two chairs", "Record customer Ada ada@example.com"] as const;
/** At most this many task event streams at once (browsers allow ~6 connections per host over HTTP/1.1). */
const MAX_STREAMS = 4;

/**
 * One conversation with the demo agent. Everything shown comes from the ledger: the conversation's tasks
 * (GET /api/tasks?conversationId=), each task's detail and, once stopped, its cancellation summary. Tasks
 * that still change are followed over their SSE stream: an event patches the step's status at once and
 * schedules one refetch shortly after. Stop is optimistic — "Stopping…" shows before the request returns.
 */
/**
 * `readOnly`: the signed-in role reads conversations but does not talk to the agent (support, operators): no
 * composer, no Stop — a note says who does, instead of a request the API would refuse.
 */
export function ChatConversation({ conversationId, isNew, readOnly = false }: { conversationId: string; isNew: boolean; readOnly?: boolean }) {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: chatKeys.conversation(conversationId),
    queryFn: ({ signal }) => fetchConversationTasks(conversationId, signal),
  });
  const tasks = useMemo(() => [...(list.data?.tasks ?? [])].reverse(), [list.data]); // oldest first
  const latestId = tasks.at(-1)?.id;

  const detailQueries = useQueries({
    queries: tasks.map((t) => ({ queryKey: chatKeys.task(t.id), queryFn: ({ signal }: { signal: AbortSignal }) => fetchTask(t.id, signal) })),
  });
  const details = useMemo(() => new Map(tasks.map((t, i) => [t.id, detailQueries[i]?.data])), [tasks, detailQueries]);

  const [stops, setStops] = useState<Record<string, StopRequest>>({});
  const summaryIds = tasks
    .filter((t) => details.get(t.id)?.cancelRequestedAt || t.cancelRequestedAt || stops[t.id]?.state === "recorded")
    .map((t) => t.id);
  const summaryQueries = useQueries({
    queries: summaryIds.map((id) => ({
      queryKey: chatKeys.summary(id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchSummary(id, signal),
      // The stream triggers refetches; this is only a safety net while the outcome is being established.
      refetchInterval: (q: { state: { data?: Summary | null } }) => (q.state.data?.status === "IN_PROGRESS" ? 3_000 : false),
    })),
  });
  const summaries = new Map(summaryIds.map((id, i) => [id, summaryQueries[i]?.data]));

  const factsOf = (id: string): TurnFacts => ({ detail: details.get(id), summary: summaries.get(id), stop: stops[id] });
  const stoppable = tasks.filter((t) => isStoppable(factsOf(t.id), details.get(t.id)?.stage ?? t.stage, t.id === latestId)).map((t) => t.id);
  const stopping = tasks.some((t) => isStopping(factsOf(t.id)));
  const live = tasks.filter((t) => isLive(factsOf(t.id), t.id === latestId)).slice(-MAX_STREAMS).map((t) => t.id);

  const sessionEnded = isUnauthorized(list.error) || detailQueries.some((q) => isUnauthorized(q.error));

  // ---- live updates -----------------------------------------------------------------------------
  const refetchSoon = useRefetchSoon(queryClient);
  const onEvent = useCallback(
    (taskId: string, event: LedgerEvent) => {
      patchFromEvent(queryClient, taskId, event);
      // Progress carries everything it changes: no refetch for it (it may arrive four times a second).
      if (event.type !== PROGRESS_EVENT) refetchSoon(taskId);
    },
    [queryClient, refetchSoon],
  );
  const [streamStates, setStreamStates] = useState<Record<string, LiveState>>({});
  const onStreamState = useCallback((taskId: string, state: LiveState | null) => {
    setStreamStates((s) => {
      if (state === null) {
        const { [taskId]: _gone, ...rest } = s;
        return rest;
      }
      return s[taskId] === state ? s : { ...s, [taskId]: state };
    });
  }, []);
  const connection = aggregate(Object.values(streamStates));

  // ---- announcements (aria-live) ------------------------------------------------------------------
  const [announcement, setAnnouncement] = useState("");
  useChangeAnnouncements(tasks, details, summaries, list.isSuccess, setAnnouncement);

  // ---- Stop ---------------------------------------------------------------------------------------
  const stopRef = useRef<() => void>(() => {});
  const stopTasks = useCallback(
    (ids: string[]) => {
      const at = Date.now();
      // Optimistic: the page says "Stopping…" in this very frame; the request follows.
      setStops((s) => ({ ...s, ...Object.fromEntries(ids.map((id) => [id, { state: "sending", at } satisfies StopRequest])) }));
      setAnnouncement("Stopping… No new step will start; each running step is being told to stop.");
      for (const id of ids) {
        stopTask(id)
          .then((answer) => {
            if (answer.kind === "boundary") {
              setStops((s) => ({ ...s, [id]: { state: "recorded", at } }));
              patchTask(queryClient, id, (t) => ({
                ...t,
                stage: t.stage === TaskStage.active ? TaskStage.cancelRequested : t.stage,
                cancelRequestedAt: t.cancelRequestedAt ?? answer.boundary.cancelRequestedAt,
              }));
            } else {
              setStops((s) => ({ ...s, [id]: { state: "already_finished", at, message: answer.message } }));
            }
            void queryClient.invalidateQueries({ queryKey: chatKeys.task(id) });
            void queryClient.invalidateQueries({ queryKey: chatKeys.summary(id) });
          })
          .catch((error: Error) => {
            const message = asSentence(error.message);
            setStops((s) => ({ ...s, [id]: { state: "failed", at, error: message } }));
            setAnnouncement(`Stop was not recorded: ${message} Press Stop again.`);
          });
      }
    },
    [queryClient],
  );

  // A message still on its way may have no task yet: Stop is recorded against its turn id (the id the message
  // carries), so that the task — whenever it comes to exist — is born with its boundary and nothing of it starts.
  const [pending, setPending] = useState<PendingMessage[]>([]);
  const stoppedTurns = useRef(new Set<string>());
  const arriving = pending.filter((m) => m.state === "sending" && !m.stopOnArrival);
  const canStop = stoppable.length > 0 || arriving.length > 0;
  const stop = () => {
    if (arriving.length > 0) {
      const ids = arriving.map((m) => m.id);
      setPending((p) => p.map((m) => (ids.includes(m.id) ? { ...m, stopOnArrival: true } : m)));
      setAnnouncement("Stopping… this request is stopped, whether or not the agent has started on it yet.");
      for (const m of arriving) {
        stoppedTurns.current.add(m.id);
        stopTurn(conversationId, m.id, m.text).catch((error: Error) => {
          stoppedTurns.current.delete(m.id);
          setPending((p) => p.map((x) => (x.id === m.id ? { ...x, stopOnArrival: false } : x)));
          setAnnouncement(`Stop was not recorded: ${asSentence(error.message)} Press Stop again.`);
        });
      }
    }
    if (stoppable.length > 0) stopTasks(stoppable);
  };
  useEffect(() => {
    stopRef.current = stop;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.isComposing || event.defaultPrevented) return;
      event.preventDefault();
      stopRef.current();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // ---- sending ------------------------------------------------------------------------------------
  const [draft, setDraft] = useState("");
  const [turns, setTurns] = useState<Record<string, Turn>>({});
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const send = useCallback(async () => {
    const text = draft.trim();
    if (!text) return;
    const id = crypto.randomUUID();
    setPending((p) => [...p, { id, text, state: "sending" }]);
    setDraft("");
    try {
      const turn = await sendMessage(conversationId, text, id);
      setTurns((t) => ({ ...t, [turn.taskId]: turn }));
      // Stopped by its turn while on its way: follow that Stop on the task the answer names.
      if (stoppedTurns.current.has(id)) setStops((s) => ({ ...s, [turn.taskId]: s[turn.taskId] ?? { state: "recorded", at: Date.now() } }));
      if (isNew && window.location.pathname !== `/chat/${conversationId}`) {
        window.history.replaceState(null, "", `/chat/${encodeURIComponent(conversationId)}`);
      }
      await queryClient.invalidateQueries({ queryKey: chatKeys.conversation(conversationId) });
      setPending((p) => p.filter((m) => m.id !== id));
      setAnnouncement(`The agent replied: ${turn.reply}`);
      void queryClient.invalidateQueries({ queryKey: chatKeys.conversations });
    } catch (error) {
      setPending((p) => p.map((m) => (m.id === id ? { ...m, state: "failed", error: asSentence((error as Error).message) } : m)));
    }
  }, [draft, conversationId, isNew, queryClient, stopTasks]);

  // ---- "while you were away" ----------------------------------------------------------------------
  const allLoaded = list.isSuccess && detailQueries.every((q) => q.isSuccess);
  const [changes, setChanges] = useState<Change[]>([]);
  const compared = useRef(false);
  const loadedDetails = useMemo(() => tasks.map((t) => details.get(t.id)).filter((d): d is TaskDetail => !!d), [tasks, details]);
  const snapshotKey = loadedDetails.map((d) => `${d.id}:${d.stage}:${d.workItems.map((i) => i.status).join(",")}`).join("|");
  useEffect(() => {
    if (!allLoaded) return;
    if (!compared.current) {
      compared.current = true;
      const before = readSnapshot(conversationId);
      if (before) setChanges(changesSince(before, loadedDetails));
    }
    writeSnapshot(conversationId, loadedDetails);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- snapshotKey stands for loadedDetails' contents
  }, [allLoaded, snapshotKey, conversationId]);

  // ---- scrolling ----------------------------------------------------------------------------------
  const endRef = useRef<HTMLDivElement>(null);
  const count = tasks.length + pending.length;
  const previousCount = useRef(0);
  useEffect(() => {
    if (count > previousCount.current) endRef.current?.scrollIntoView({ block: "end", behavior: previousCount.current === 0 ? "auto" : "smooth" });
    previousCount.current = count;
  }, [count]);
  // A reopened conversation: once every turn's details (and so its outcome) have loaded and grown the page, the
  // latest outcome is brought into view again — once, so reading further up is never pulled back down.
  const scrolledWhenLoaded = useRef(false);
  useEffect(() => {
    if (!allLoaded || scrolledWhenLoaded.current || count === 0) return;
    scrolledWhenLoaded.current = true;
    requestAnimationFrame(() => endRef.current?.scrollIntoView({ block: "end" }));
  }, [allLoaded, count]);

  // ---- render -------------------------------------------------------------------------------------
  if (sessionEnded) return <SessionEnded />;

  const started = tasks[0]?.createdAt;
  return (
    <div className="flex min-h-[calc(100vh-6rem)] min-w-0 flex-col">
      {live.map((id) => (
        <TaskSubscriber key={id} taskId={id} onEvent={onEvent} onState={onStreamState} />
      ))}

      <div className="space-y-1 pb-5">
        <div className="flex min-h-8 items-center justify-between gap-3">
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Chat</h1>
          <div className="flex items-center gap-3">
            {live.length > 0 && <ConnectionStatus state={connection} />}
            <a href="/chat" className="text-sm font-medium text-accent underline-offset-4 hover:underline lg:hidden">
              New conversation
            </a>
          </div>
        </div>
        <p className="text-sm text-muted">
          {started ? (
            <>
              Conversation started <time dateTime={started} title={fullTime(started)}>{shortTime(started)}</time>. Everything here is read from the
              ledger: closing this tab changes nothing, and reopening it shows what happened meanwhile.
            </>
          ) : (
            "Ask the demo agent for something. Stop ends whatever it is doing — and tells you exactly what stopped and what had already happened."
          )}
        </p>
      </div>

      <section aria-label="Conversation" className="flex-1 space-y-8 pb-6">
        {list.isPending ? (
          <LoadingState />
        ) : list.isError && !list.data ? (
          <ErrorState message={asSentence((list.error as Error).message)} onRetry={() => void list.refetch()} />
        ) : tasks.length === 0 && pending.length === 0 ? (
          <EmptyState
            onPick={(text) => {
              setDraft(text);
              composerRef.current?.focus();
            }}
          />
        ) : (
          <>
            {list.isRefetchError && (
              <p role="alert" className="rounded-md bg-warn-soft px-4 py-2 text-sm text-warn">
                Could not refresh the conversation ({(list.error as Error).message}); showing what was loaded before.
              </p>
            )}
            {tasks.map((task) => (
              <TurnView
                key={task.id}
                task={task}
                detail={details.get(task.id)}
                summary={summaries.get(task.id)}
                stop={stops[task.id]}
                turn={turns[task.id]}
                changes={changes.filter((c) => c.taskId === task.id)}
                onDismissChanges={() => setChanges((cs) => cs.filter((c) => c.taskId !== task.id))}
              />
            ))}
          </>
        )}
        {pending.map((m) => (
          <PendingTurn
            key={m.id}
            message={m}
            onRestore={() => {
              setPending((p) => p.filter((x) => x.id !== m.id));
              setDraft(m.text);
              composerRef.current?.focus();
            }}
          />
        ))}
        <div ref={endRef} className="scroll-mb-44" />
      </section>

      {readOnly ? (
        <p data-testid="read-only-chat" className="sticky bottom-0 rounded-card border border-line bg-surface px-4 py-3 text-sm text-muted shadow-xs">
          You can read this conversation. Only the person it belongs to talks to the agent and presses Stop here; operators stop tasks and decide
          what is left in the <a href="/console" className="font-medium text-accent underline-offset-2 hover:underline">console</a>.
        </p>
      ) : (
      <Composer
        ref={composerRef}
        draft={draft}
        onDraftChange={setDraft}
        onSend={() => void send()}
        canStop={canStop}
        stopping={stopping || pending.some((m) => m.stopOnArrival)}
        onStop={stop}
        announcement={announcement}
      />
      )}
    </div>
  );
}

// ---- live updates --------------------------------------------------------------------------------

function TaskSubscriber({
  taskId,
  onEvent,
  onState,
}: {
  taskId: string;
  onEvent: (taskId: string, event: LedgerEvent) => void;
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

function patchTask(queryClient: QueryClient, taskId: string, patch: (t: TaskDetail) => TaskDetail) {
  queryClient.setQueryData<TaskDetail>(chatKeys.task(taskId), (t) => (t ? patch(t) : t));
}

/**
 * A status change shows at once; the refetch that follows brings the rest (results, resources, times).
 * The stream replays the task's history when it opens: an event older than the row already loaded is
 * not applied (it would flash a past state), it only triggers the refetch.
 */
function patchFromEvent(queryClient: QueryClient, taskId: string, event: LedgerEvent) {
  patchTask(queryClient, taskId, (t) => applyToTask(t, event));
}

/** One refetch per task for a burst of events. */
function useRefetchSoon(queryClient: QueryClient, delayMs = 120) {
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

function aggregate(states: LiveState[]): LiveState {
  if (states.includes("reconnecting")) return "reconnecting";
  if (states.includes("connecting")) return "connecting";
  return "live";
}

/**
 * Compares what is shown with what was shown before and announces the differences: a step's new status,
 * a summary that arrived or changed. The first load is not news.
 */
function useChangeAnnouncements(
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

// ---- states ----------------------------------------------------------------------------------------

function PendingTurn({ message, onRestore }: { message: PendingMessage; onRestore: () => void }) {
  return (
    <div className="space-y-3" data-testid="pending-turn">
      <UserBubble text={message.text} pending={message.state === "sending"} failed={message.state === "failed"} />
      {message.state === "sending" ? (
        <div className="flex gap-3">
          <AgentMark />
          {message.stopOnArrival ? (
            <p className="flex min-h-7 items-center text-sm text-warn">Stopping… this request is stopped, whether or not the agent has started on it yet.</p>
          ) : (
            <p className="flex h-7 items-center gap-1" aria-label="The agent is reading your message">
              {[0, 1, 2].map((i) => (
                <span key={i} className="size-1.5 animate-pulse rounded-full bg-muted/70" style={{ animationDelay: `${i * 150}ms` }} />
              ))}
            </p>
          )}
        </div>
      ) : (
        <div role="alert" className="ml-auto flex max-w-[85%] flex-wrap items-center justify-end gap-2 text-sm text-danger sm:max-w-[70%]">
          <span>The message was not sent: {message.error}</span>
          <Button variant="secondary" size="sm" onClick={onRestore}>
            Edit and send again
          </Button>
        </div>
      )}
    </div>
  );
}

function EmptyState({ onPick }: { onPick: (text: string) => void }) {
  return (
    <Card className="flex flex-col items-center px-6 py-12 text-center" data-testid="chat-empty">
      <span aria-hidden="true" className="mb-4 grid size-10 place-items-center rounded-full bg-accent-soft">
        <span className="size-3 rounded-sm bg-accent" />
      </span>
      <h2 className="text-base font-semibold text-ink">Start a conversation with the demo agent</h2>
      <p className="mt-2 max-w-lg text-sm leading-6 text-muted">
        It can export a report, order from the shop, or record a customer and email them. It asks before anything takes effect, and{" "}
        <strong className="font-semibold text-ink">Stop</strong> (or Esc) ends whatever it is doing at any moment.
      </p>
      <ul className="mt-5 flex flex-wrap justify-center gap-2" aria-label="Try one of these">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <Button variant="secondary" size="sm" onClick={() => onPick(s)}>
              {s}
            </Button>
          </li>
        ))}
      </ul>
    </Card>
  );
}

function LoadingState() {
  return (
    <div aria-busy="true" className="space-y-8">
      <p role="status" className="sr-only">
        Loading the conversation…
      </p>
      {[0, 1].map((i) => (
        <div key={i} aria-hidden="true" className="space-y-3">
          <div className="flex justify-end">
            <span className="h-10 w-56 animate-pulse rounded-2xl bg-line/70" />
          </div>
          <div className="flex gap-3">
            <span className="size-7 animate-pulse rounded-full bg-line/70" />
            <div className="flex-1 space-y-3">
              <span className="block h-5 w-2/3 animate-pulse rounded bg-line/70" />
              <span className="block h-24 w-full animate-pulse rounded-card bg-line/50" />
            </div>
          </div>
        </div>
      ))}
    </div>
  );
}

function ErrorState({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Card role="alert" className="border-danger/30 px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-danger">The conversation could not be loaded</h2>
      <p className="mt-2 text-sm text-muted">
        {message} Whatever the agent was doing carries on on the server; try again to see where it stands.
      </p>
      <Button variant="secondary" size="sm" className="mt-4" onClick={onRetry}>
        Try again
      </Button>
    </Card>
  );
}
