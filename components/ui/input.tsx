import type { InputHTMLAttributes } from "react";
import { cx } from "./cx";

/** The classes of a text field, shared by <input> and <textarea>-like controls. */
export function inputStyles(className?: string) {
  return cx(
    "block h-10 w-full rounded-md border border-line bg-surface px-3 text-sm text-ink shadow-xs",
    "placeholder:text-muted/80 focus-visible:border-accent focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-accent",
    "disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-danger",
    className,
  );
}

/** A native text <input>. Give it a visible <label htmlFor> (or an aria-label when the context says it all). */
export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={inputStyles(className)} {...props} />;
}
