"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ConnectionStatus } from "@/components/console/connection-status";
import { fullTime, shortTime } from "@/components/console/format";
import type { LiveState } from "@/components/use-event-stream";
import { LedgerEvent } from "@/lib/ledger/events";
import { TaskStage } from "@/lib/ledger/states";
import { asSentence, chatKeys, isUnauthorized, sendMessage, stopTask, stopTurn, type LedgerEventRecord, type TaskDetail, type Turn } from "./api";
import { Composer } from "./composer";
import { useChatTasks, useConversation, useSummaries } from "@/components/data/use-conversation";
import { aggregate, patchFromEvent, patchTask, TaskSubscriber, useChangeAnnouncements, useRefetchSoon } from "./conversation-live";
import { ChatEmptyState, PendingTurn, type PendingMessage } from "./conversation-states";
import { ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import { changesSince, readSnapshot, writeSnapshot, type Change } from "./meanwhile";
import { TurnView } from "./turn";
import { isLive, isStoppable, isStopping, type StopRequest, type TurnFacts } from "./turn-state";

/** At most this many task event streams at once (browsers allow ~6 connections per host over HTTP/1.1). */
const MAX_STREAMS = 4;

/**
 * One conversation with the demo agent. Everything shown comes from the ledger: the conversation's tasks
 * (GET /api/tasks?conversationId=), each task's detail and, once stopped, its cancellation summary. Tasks
 * that still change are followed over their SSE stream: an event patches the step's status at once and
 * schedules one refetch shortly after. Stop is optimistic — "Stopping…" shows before the request returns.
 * `readOnly`: the signed-in role reads conversations but does not talk to the agent (support, operators): no
 * composer, no Stop — a note says who does, instead of a request the API would refuse.
 */
export function ChatConversation({ conversationId, isNew, readOnly = false }: { conversationId: string; isNew: boolean; readOnly?: boolean }) {
  const queryClient = useQueryClient();
  const list = useConversation(conversationId);
  const tasks = useMemo(() => [...(list.data?.tasks ?? [])].reverse(), [list.data]); // oldest first
  const latestId = tasks.at(-1)?.id;

  const detailQueries = useChatTasks(tasks.map((t) => t.id));
  const details = useMemo(() => new Map(tasks.map((t, i) => [t.id, detailQueries[i]?.data])), [tasks, detailQueries]);

  const [stops, setStops] = useState<Record<string, StopRequest>>({});
  const summaryIds = tasks.filter((t) => details.get(t.id)?.cancelRequestedAt || t.cancelRequestedAt || stops[t.id]?.state === "recorded").map((t) => t.id);
  const summaryQueries = useSummaries(summaryIds);
  const summaries = new Map(summaryIds.map((id, i) => [id, summaryQueries[i]?.data]));

  const factsOf = (id: string): TurnFacts => ({ detail: details.get(id), summary: summaries.get(id), stop: stops[id] });
  const stoppable = tasks.filter((t) => isStoppable(factsOf(t.id), details.get(t.id)?.stage ?? t.stage, t.id === latestId)).map((t) => t.id);
  const stopping = tasks.some((t) => isStopping(factsOf(t.id)));
  const live = tasks
    .filter((t) => isLive(factsOf(t.id), t.id === latestId))
    .slice(-MAX_STREAMS)
    .map((t) => t.id);

  // A 401 on any read or write (a message, a Stop) ends the page's session: one state says so, never a raw refusal.
  const [writeRefused, setWriteRefused] = useState(false);
  const sessionEnded = writeRefused || isUnauthorized(list.error) || detailQueries.some((q) => isUnauthorized(q.error));

  // ---- live updates -----------------------------------------------------------------------------
  const refetchSoon = useRefetchSoon(queryClient);
  const onEvent = useCallback(
    (taskId: string, event: LedgerEventRecord) => {
      patchFromEvent(queryClient, taskId, event);
      // Progress carries everything it changes: no refetch for it (it may arrive four times a second).
      if (event.type !== LedgerEvent.workItemProgress) refetchSoon(taskId);
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
            if (isUnauthorized(error)) setWriteRefused(true);
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
          if (isUnauthorized(error)) setWriteRefused(true);
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
      if (isUnauthorized(error)) setWriteRefused(true);
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
              Conversation started{" "}
              <time dateTime={started} title={fullTime(started)}>
                {shortTime(started)}
              </time>
              . Everything here is read from the ledger: closing this tab changes nothing, and reopening it shows what happened meanwhile.
            </>
          ) : (
            "Ask the demo agent for something. Stop ends whatever it is doing — and tells you exactly what stopped and what had already happened."
          )}
        </p>
      </div>

      <section aria-label="Conversation" className="flex-1 space-y-8 pb-6">
        {list.isPending ? (
          <LoadingState subject="conversation" shape="conversation" />
        ) : list.isError && !list.data ? (
          <ErrorState subject="conversation" error={list.error} onRetry={() => void list.refetch()} />
        ) : tasks.length === 0 && pending.length === 0 ? (
          <ChatEmptyState
            readOnly={readOnly}
            onPick={(text) => {
              setDraft(text);
              composerRef.current?.focus();
            }}
          />
        ) : (
          <>
            {list.isRefetchError && <StaleNotice subject="conversation" error={list.error} />}
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
          You can read this conversation. Only the person it belongs to talks to the agent and presses Stop here; operators stop tasks and decide what is left
          in the{" "}
          <a href="/console" className="font-medium text-accent underline-offset-2 hover:underline">
            console
          </a>
          .
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
          stopPreviewTaskIds={stoppable}
        />
      )}
    </div>
  );
}
