import { twMerge } from "tailwind-merge";

/**
 * Joins class names, skipping falsy ones, and lets a later Tailwind class win over an earlier one of the same
 * property: cx("p-6 bg-surface", "p-0") → "bg-surface p-0". Components put their defaults first and the
 * caller's className last, so a caller can override them.
 */
export function cx(...classes: Array<string | false | null | undefined>): string {
  return twMerge(classes.filter(Boolean).join(" "));
}
