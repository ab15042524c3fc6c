"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "@/components/ui/button";

/**
 * A modal confirmation for an action that cannot be taken back from where it is clicked (revoke a token,
 * disable an account). The native <dialog> keeps focus inside, closes on Escape and returns focus to the
 * button that opened it; the safe choice ("Cancel") has focus first, so Enter does not confirm by accident.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  pending,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pending?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLButtonElement>("[data-safe-choice]")?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the backdrop click mirrors Escape, which <dialog> already handles
    <dialog
      ref={ref}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onClose={onClose}
      onClick={(e) => {
        // A click on the backdrop (outside the panel) is a cancel.
        if (e.target === ref.current && !pending) onClose();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-card border border-line bg-surface p-0 text-ink shadow-lg backdrop:bg-ink/30"
    >
      <div className="p-5">
        <h2 id={`${id}-title`} className="text-base font-semibold">
          {title}
        </h2>
        <div id={`${id}-body`} className="mt-2 space-y-2 text-sm leading-6 text-muted">
          {children}
        </div>
        <div className="mt-5 flex justify-end gap-2">
          <Button data-safe-choice variant="secondary" size="sm" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button variant="danger" size="sm" onClick={onConfirm} disabled={pending} data-testid="confirm-action">
            {pending ? "Working…" : confirmLabel}
          </Button>
        </div>
      </div>
    </dialog>
  );
}
