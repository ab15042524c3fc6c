"use client";

import { useEffect, useRef, useState } from "react";
import { toolLabel } from "@/components/chat/labels";
import { outcomeSentence } from "@/components/outcome-words";
import { outcomesOfTask } from "@/lib/outcomes";
import { taskStageLabel } from "../task-stage";
import { effectLabel, type TaskDetail } from "./types";

export /** Ticks every second while the task is still moving, so running bars grow. */
function useNow(ticking: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ticking]);
  return now;
}

export /** Announces stage changes and children settling (aria-live). */
function useAnnouncement(task: TaskDetail | undefined) {
  const previous = useRef<Map<string, string> | null>(null);
  const [text, setText] = useState("");
  useEffect(() => {
    if (!task) return;
    const next = new Map<string, string>([["task", task.stage], ...task.workItems.map((w) => [w.id, w.status] as [string, string])]);
    for (const s of task.sideEffects) next.set(`se:${s.id}`, s.outcome);
    const before = previous.current;
    previous.current = next;
    if (!before) return;
    const messages: string[] = [];
    if (before.get("task") !== task.stage) messages.push(`The task is now ${taskStageLabel(task)}.`);
    for (const w of task.workItems)
      if (before.get(w.id) !== w.status) messages.push(`${toolLabel(w.toolName)}: ${outcomeSentence(outcomesOfTask(task, Date.now()).get(w.id)!)}`);
    for (const s of task.sideEffects)
      if (before.get(`se:${s.id}`) !== s.outcome) messages.push(`${s.description ?? "A side effect"} is ${effectLabel(s.outcome)}.`);
    if (messages.length) setText(messages.join(" "));
  }, [task]);
  return text;
}
