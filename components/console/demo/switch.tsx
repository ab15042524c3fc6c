"use client";

import type { ButtonHTMLAttributes } from "react";
import { cx } from "@/components/ui/cx";

/**
 * An on/off switch: a native <button role="switch"> (label it with <label htmlFor>, which also makes the
 * label clickable). The state is in aria-checked; the knob's position is decoration.
 */
export function Switch({
  checked,
  onCheckedChange,
  className,
  ...props
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, "onChange"> & { checked: boolean; onCheckedChange: (checked: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      onClick={() => onCheckedChange(!checked)}
      className={cx(
        "relative inline-flex h-6 w-10 shrink-0 cursor-pointer items-center rounded-full border transition-colors",
        "disabled:cursor-not-allowed disabled:opacity-50",
        checked ? "border-accent bg-accent" : "border-transparent bg-muted/30 hover:bg-muted/40",
        className,
      )}
      {...props}
    >
      <span
        aria-hidden="true"
        className={cx(
          "inline-block size-4.5 rounded-full bg-white shadow-sm ring-1 ring-black/5 transition-transform",
          checked ? "translate-x-[1.125rem]" : "translate-x-0.5",
        )}
      />
    </button>
  );
}
