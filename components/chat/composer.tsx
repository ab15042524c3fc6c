"use client";

import { forwardRef, useId, type FormEvent, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { inputStyles } from "@/components/ui/input";
import { StopPreviewHover } from "@/components/stop/stop-preview";

interface Props {
  draft: string;
  onDraftChange: (text: string) => void;
  onSend: () => void;
  canStop: boolean;
  stopping: boolean;
  onStop: () => void;
  /** The latest state change, in words (aria-live). */
  announcement: string;
  /** The tasks Stop would stop: hovering or focusing Stop (a long press on touch) previews what it would do. */
  stopPreviewTaskIds?: string[];
}

/** The API's limit on a message (lib/api/schemas.ts MessageBody.text): shown as it nears, never cut silently. */
export const MESSAGE_LIMIT = 2000;

/**
 * The bar at the bottom of the conversation: always on screen (sticky), with the message field and one button slot
 * at its bottom right (issue 12 §5: thumb-reachable on a phone, 44 px tall). The slot holds Send; while the agent
 * works it holds Stop instead — same place, same size — and "Stopping…" (focusable, aria-disabled) until the Stop
 * settled, then Send again. A message typed meanwhile gets its own Send beside the slot. Escape presses Stop from
 * anywhere on the page; the hint under the field says what it would do.
 */
export const Composer = forwardRef<HTMLTextAreaElement, Props>(function Composer(
  { draft, onDraftChange, onSend, canStop, stopping, onStop, announcement, stopPreviewTaskIds = [] },
  ref,
) {
  const id = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (draft.trim() && draft.length <= MESSAGE_LIMIT) onSend();
  }
  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  }

  const tooLong = draft.length > MESSAGE_LIMIT;
  // Stop takes Send's place while there is something to stop, and stays there (as "Stopping…") until the Stop settled.
  const stopInSlot = canStop || stopping;
  const stopLabel = canStop ? "Stop" : "Stopping…";
  return (
    // -mb-10 cancels the page's bottom padding: scrolled to the end, the bar still sits on the window's edge.
    <div className="sticky bottom-0 z-10 -mx-4 -mb-10 border-t border-line bg-canvas/95 px-4 pt-2 pb-4 backdrop-blur sm:-mx-6 sm:px-6">
      <p aria-live="polite" aria-atomic="true" data-testid="announcer" className="mb-2 min-h-5 truncate text-sm text-muted">
        {announcement}
      </p>
      <form onSubmit={submit} className="flex items-end gap-2">
        <label htmlFor={`${id}-message`} className="sr-only">
          Message to the agent
        </label>
        <textarea
          ref={ref}
          id={`${id}-message`}
          rows={1}
          value={draft}
          onChange={(e) => onDraftChange(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder="Ask the agent…"
          aria-describedby={`${id}-keys${tooLong ? ` ${id}-limit` : ""}`}
          aria-invalid={tooLong || undefined}
          className={cx(inputStyles(), "h-11 max-h-40 min-h-11 resize-none py-2.5 leading-6")}
        />
        {/* While a Stop is in the slot, a message typed meanwhile can still be sent: Send steps aside for it. */}
        {stopInSlot && draft.trim() && (
          <Button type="submit" variant="secondary" className="h-11 shrink-0 px-3" disabled={tooLong} data-testid="send-button">
            Send
          </Button>
        )}
        {/* The one slot, bottom right, in thumb reach: Send, or — while the agent works — Stop in its very place. */}
        <div data-testid="composer-slot" data-holds={stopInSlot ? "stop" : "send"} className="w-28 shrink-0 sm:w-36">
          {stopInSlot ? (
            <StopPreviewHover taskIds={canStop ? stopPreviewTaskIds : []} className="flex w-full">
              {(previewId) => (
                <Button
                  variant="danger"
                  data-testid="stop-button"
                  aria-keyshortcuts="Escape"
                  aria-disabled={!canStop || undefined}
                  aria-describedby={`${id}-stop-hint ${previewId}`}
                  onClick={canStop ? onStop : undefined}
                  className={cx("h-11 w-full", !canStop && "cursor-progress opacity-80 hover:bg-stop")}
                >
                  <span aria-hidden="true" className="size-2.5 rounded-[2px] bg-white" />
                  <span data-testid="stop-label">{stopLabel}</span>
                  {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: a <kbd> is not focusable; the button is, and its name is "Stop" */}
                  <kbd aria-hidden="true" className="hidden rounded border border-white/40 px-1 font-sans text-[0.6875rem] leading-4 font-medium sm:inline">
                    Esc
                  </kbd>
                </Button>
              )}
            </StopPreviewHover>
          ) : (
            <Button type="submit" className="h-11 w-full" disabled={!draft.trim() || tooLong} data-testid="send-button">
              Send
            </Button>
          )}
        </div>
      </form>
      {draft.length > MESSAGE_LIMIT * 0.9 && (
        <p id={`${id}-limit`} data-testid="composer-limit" className={cx("mt-1.5 text-xs tabular-nums", tooLong ? "font-medium text-danger" : "text-muted")}>
          {draft.length.toLocaleString("en")} / {MESSAGE_LIMIT.toLocaleString("en")} characters
          {tooLong && ` — ${(draft.length - MESSAGE_LIMIT).toLocaleString("en")} too many: shorten the message to send it (nothing is cut)`}
        </p>
      )}
      <p id={`${id}-keys`} className="mt-1.5 text-xs text-muted">
        Enter sends · Shift+Enter adds a line ·{" "}
        <span id={`${id}-stop-hint`}>
          {canStop
            ? "Esc or Stop ends what the agent is doing"
            : stopping
              ? "Stopping — each step's outcome appears above as it is established"
              : "Nothing to stop right now"}
        </span>
      </p>
    </div>
  );
});
