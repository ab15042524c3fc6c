"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { Choice } from "@/lib/review/choices";
import type { Armed } from "./decision-form";

const IN_FIELD = new Set(["INPUT", "TEXTAREA", "SELECT"]);

/** The shortcuts, shown on the page and announced to the help toggle (one list: what the help says is what works). */
export const SHORTCUTS: readonly { keys: string; what: string }[] = [
  { keys: "j / k", what: "next / previous item" },
  { keys: "a", what: "the item's main action: approve, resolve, mark handled or retry the release — then type the reason and press Enter" },
  { keys: "r", what: "reject a compensation (only on items that show a Reject button; elsewhere r does nothing)" },
  { keys: "Esc", what: "leave a field, back to the item" },
  { keys: "?", what: "show or hide these shortcuts" },
];

/**
 * Keyboard triage of the review queue: j/k move between open items (the focus moves to the item's card), a/r choose
 * an action on the current item and put the cursor in its reason field (Enter sends), Esc returns from a field to the
 * item, ? toggles the help. Letters typed into a field are text, never shortcuts. After a decision, `moveOnFrom`
 * moves the focus to the next item (or the previous one when it was the last).
 */
export function useQueueKeys(
  openIds: string[],
  enabled: boolean,
  keysOf: (id: string) => { a: Choice | null; r: Choice | null },
  onNoAction?: (key: string) => void,
) {
  const [current, setCurrent] = useState<string | null>(null);
  const [armed, setArmed] = useState<Armed | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  const ids = useRef(openIds);
  ids.current = openIds;
  const currentRef = useRef(current);
  currentRef.current = current;
  // What a and r do on each item comes from the item's own choices (lib/review/choices.ts): a key never does what no
  // button on that card shows.
  const keysRef = useRef(keysOf);
  keysRef.current = keysOf;
  const noActionRef = useRef(onNoAction);
  noActionRef.current = onNoAction;

  const focusItem = useCallback((id: string | undefined) => {
    if (!id) return;
    const el = document.getElementById(id);
    if (!el) return;
    setCurrent(id);
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }, []);

  const move = useCallback(
    (step: 1 | -1) => {
      const list = ids.current;
      if (!list.length) return;
      const at = currentRef.current ? list.indexOf(currentRef.current) : -1;
      const next = at === -1 ? (step === 1 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + step));
      focusItem(list[next]);
    },
    [focusItem],
  );

  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      const inField = !!target && (IN_FIELD.has(target.tagName) || target.isContentEditable);
      if (inField) {
        if (e.key === "Escape" && currentRef.current) {
          e.preventDefault();
          focusItem(currentRef.current);
        }
        return;
      }
      if (e.key === "j") move(1);
      else if (e.key === "k") move(-1);
      else if ((e.key === "a" || e.key === "r") && currentRef.current) {
        const choice = keysRef.current(currentRef.current)[e.key];
        if (choice) setArmed({ choice, at: Date.now() });
        else noActionRef.current?.(e.key);
      } else if (e.key === "?") setHelpOpen((o) => !o);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [enabled, move, focusItem]);

  const moveOnFrom = useCallback(
    (id: string) => {
      const list = ids.current;
      const at = list.indexOf(id);
      const next = list[at + 1] ?? list[at - 1];
      setArmed(null);
      if (next) focusItem(next);
      else document.getElementById("open-title")?.focus();
    },
    [focusItem],
  );

  return { current, setCurrent, armed, helpOpen, toggleHelp: () => setHelpOpen((o) => !o), moveOnFrom };
}

/** The visible shortcut help: one line always, the full list on demand (? or the button). */
export function ShortcutHelp({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  return (
    <div className="rounded-md border border-line bg-surface px-3 py-2 text-xs text-muted" data-testid="shortcut-help">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span>
          Keyboard: <Kbd>j</Kbd>/<Kbd>k</Kbd> move · <Kbd>a</Kbd> act · <Kbd>r</Kbd> reject (where shown) · <Kbd>?</Kbd> help
        </span>
        <button type="button" className="font-medium text-accent underline-offset-2 hover:underline" aria-expanded={open} onClick={onToggle}>
          {open ? "Hide shortcuts" : "All shortcuts"}
        </button>
      </div>
      {open && (
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          {SHORTCUTS.map((s) => (
            <div key={s.keys} className="contents">
              <dt>
                <Kbd>{s.keys}</Kbd>
              </dt>
              <dd className="text-ink">{s.what}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

const Kbd = ({ children }: { children: React.ReactNode }) => (
  <kbd className="rounded border border-line bg-canvas px-1 py-px font-mono text-[0.7rem] text-ink">{children}</kbd>
);
