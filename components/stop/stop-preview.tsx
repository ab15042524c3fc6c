"use client";

import { cx } from "@/components/ui/cx";
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import type { z } from "zod";
import { ApiError, apiFetch, asSentence } from "@/components/api-client";
import { toolLabel } from "@/components/chat/labels";
import { Badge } from "@/components/ui/badge";
import type { StopPreviewSchema } from "@/lib/api/schemas";

export type StopPreview = z.output<typeof StopPreviewSchema>;

/** How often an open preview asks again (the ledger moves while a person hesitates). */
const REFRESH_MS = 2_000;
/** A touch held this long shows the preview instead of pressing Stop. */
const LONG_PRESS_MS = 500;

type PreviewChild = Extract<StopPreview, { state: "would_stop" }>["children"][number];

/** The API's sentence with the step named as pages name it ("Exporting the report will be cancelled at its service, …"). */
function sentenceOf(c: PreviewChild): string {
  const subject = c.preview.subject === c.tool_name ? toolLabel(c.tool_name) : c.preview.subject;
  return `${subject.charAt(0).toUpperCase()}${subject.slice(1)} ${c.preview.predicate}.`;
}

/** Reads the previews of these tasks; `null` while the first answer is on its way. */
function usePreviews(taskIds: string[], open: boolean) {
  const [previews, setPreviews] = useState<StopPreview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = taskIds.join(",");
  useEffect(() => {
    if (!open || !key) return;
    const controller = new AbortController();
    const load = () =>
      Promise.all(key.split(",").map((id) => apiFetch<StopPreview>(`/api/tasks/${encodeURIComponent(id)}/stop-preview`, { signal: controller.signal })))
        .then((p) => {
          // An answer cut off by the abort reads as null: only a whole, current answer is shown.
          if (controller.signal.aborted || p.some((x) => !x)) return;
          setPreviews(p);
          setError(null);
        })
        .catch(
          (e) => !controller.signal.aborted && setError(e instanceof ApiError ? asSentence(e.message) : "What Stop would do could not be read right now."),
        );
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => (controller.abort(), clearInterval(timer));
  }, [open, key]);
  return { previews, error };
}

/** The preview's content: one line per task, then each child's prediction with the badge of the outcome it heads for. */
export function StopPreviewBody({ previews, error }: { previews: StopPreview[] | null; error: string | null }) {
  if (error) return <p className="text-danger">{error}</p>;
  if (!previews) return <p className="text-muted">Working out what Stop would do…</p>;
  const children = previews.flatMap((p) => (p.state === "would_stop" ? p.children : []));
  return (
    <div className="space-y-2" data-testid="stop-preview-body">
      {previews.map((p) => (
        <p key={p.task_id} className="font-medium text-ink" data-testid="stop-preview-headline">
          {p.headline}
        </p>
      ))}
      {children.length > 0 && (
        <ul className="space-y-1.5">
          {children.map((c) => (
            <li key={`${c.work_item_id}:${c.preview.kind}`} className="flex items-start gap-2" data-testid="stop-preview-child" data-kind={c.preview.kind}>
              <Badge tone={c.preview.tone} className="mt-0.5 shrink-0">
                {c.preview.short}
              </Badge>
              <span className="text-ink">{sentenceOf(c)}</span>
            </li>
          ))}
        </ul>
      )}
      {previews.some((p) => p.state === "would_stop" && p.model_may_advise) && (
        <p className="text-xs text-muted">
          A planning model may choose another allowed way to stop a step; what is said here about what cannot be undone stays true.
        </p>
      )}
    </div>
  );
}

/**
 * What Stop would do, shown while the pointer rests on Stop, while Stop has the keyboard focus, or after a long
 * press on a touch screen (which then does not press Stop). It never presses Stop itself. `children` renders the
 * trigger and gets the preview's id for its aria-describedby.
 */
export function StopPreviewHover({
  taskIds,
  side = "above",
  className,
  children,
}: {
  taskIds: string[];
  side?: "above" | "below";
  /** The wrapper's classes (the chat's composer slot makes it as wide as the slot). */
  className?: string;
  children: (previewId: string) => ReactNode;
}) {
  const id = useId();
  const previewId = `${id}-stop-preview`;
  const [open, setOpen] = useState(false);
  const press = useRef<{ timer: ReturnType<typeof setTimeout> | null; long: boolean }>({ timer: null, long: false });
  const { previews, error } = usePreviews(taskIds, open && taskIds.length > 0);
  const show = useCallback(() => setOpen(true), []);
  const hide = useCallback(() => setOpen(false), []);
  const endPress = () => {
    if (press.current.timer) clearTimeout(press.current.timer);
    press.current.timer = null;
  };
  const visible = open && taskIds.length > 0;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the wrapper only listens; the Stop button inside is the control (focus shows the preview too)
    <span
      className={cx("relative inline-flex", className)}
      onPointerEnter={(e) => e.pointerType !== "touch" && show()}
      onPointerLeave={(e) => e.pointerType !== "touch" && hide()}
      onFocus={show}
      onBlur={hide}
      onKeyDown={(e) => e.key === "Escape" && open && hide()}
      onPointerDown={(e) => {
        if (e.pointerType !== "touch") return;
        press.current.long = false;
        endPress();
        press.current.timer = setTimeout(() => ((press.current.long = true), show()), LONG_PRESS_MS);
      }}
      onPointerUp={endPress}
      onPointerCancel={endPress}
      onContextMenu={(e) => press.current.long && e.preventDefault()}
      onClickCapture={(e) => {
        // A long press shows the preview; it is not a Stop.
        if (press.current.long) {
          press.current.long = false;
          e.preventDefault();
          e.stopPropagation();
        }
      }}
    >
      {children(previewId)}
      <div
        id={previewId}
        role="tooltip"
        hidden={!visible}
        data-testid="stop-preview"
        className={`absolute right-0 z-20 ${side === "above" ? "bottom-full mb-2" : "top-full mt-2"} w-[min(24rem,calc(100vw-2rem))] rounded-md border border-line bg-surface p-3 text-left text-sm shadow-lg`}
      >
        <p className="mb-1.5 text-xs font-semibold tracking-wide text-muted uppercase">If you press Stop now</p>
        {visible && <StopPreviewBody previews={previews} error={error} />}
      </div>
    </span>
  );
}

/** The preview as a panel (the console shows it beside Stop, always open while the confirmation is). */
export function StopPreviewPanel({ taskId }: { taskId: string }) {
  const { previews, error } = usePreviews([taskId], true);
  return (
    <section aria-label="What Stop would do" className="rounded-md border border-line bg-surface p-3 text-sm" data-testid="stop-preview">
      <p className="mb-1.5 text-xs font-semibold tracking-wide text-muted uppercase">If you press Stop now</p>
      <StopPreviewBody previews={previews} error={error} />
    </section>
  );
}
