"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";

/**
 * Makes each task row of the console's table open that task's detail page: a click anywhere on the row,
 * or Enter on the focused row (rows become focusable and say so). Ctrl/⌘-click opens a new tab.
 */
export function TaskRowLinks({ children }: { children: ReactNode }) {
  const router = useRouter();
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const mark = () => {
      root.querySelectorAll<HTMLTableRowElement>("tr[data-task-id]").forEach((row) => {
        if (row.dataset.linked) return;
        row.dataset.linked = "true";
        row.tabIndex = 0;
        row.style.cursor = "pointer";
        row.title = "Open the task's detail";
        row.classList.add("focus-visible:outline-2", "focus-visible:outline-accent", "focus-visible:-outline-offset-2");
      });
    };
    mark();
    const observer = new MutationObserver(mark);
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);

  const open = (target: EventTarget | null, newTab: boolean) => {
    const row = (target as HTMLElement | null)?.closest<HTMLTableRowElement>("tr[data-task-id]");
    if (!row || (target as HTMLElement).closest("a, button, input, select, textarea")) return;
    const href = `/console/tasks/${encodeURIComponent(row.dataset.taskId!)}`;
    if (newTab) window.open(href, "_blank", "noopener");
    else router.push(href);
  };

  return (
    <div
      ref={ref}
      onClick={(e) => open(e.target, e.metaKey || e.ctrlKey)}
      onKeyDown={(e) => {
        if (e.key === "Enter" && (e.target as HTMLElement).matches("tr[data-task-id]")) open(e.target, false);
      }}
    >
      {children}
    </div>
  );
}
