import type { ReactNode } from "react";
import { cx } from "./cx";

/**
 * "Details": where ids, HTTP statuses, handles and paths live, one click away from the plain words a person
 * reads first (issue 10). Native <details>: keyboard and screen readers work without script.
 */
export function Details({ children, label = "Details", className, testId }: { children: ReactNode; label?: string; className?: string; testId?: string }) {
  return (
    <details className={cx("group text-xs text-muted", className)} data-testid={testId}>
      <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded font-medium text-muted select-none hover:text-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="inline-block transition-transform group-open:rotate-90">
          ›
        </span>
        {label}
      </summary>
      <div className="mt-1.5 space-y-1 border-l border-line pl-3 break-words">{children}</div>
    </details>
  );
}

/** A term and its value inside Details (an id, a handle, a status code): monospace, wraps anywhere. */
export function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <p>
      <span className="text-muted">{term}</span> <span className="font-mono text-ink break-all">{children}</span>
    </p>
  );
}
