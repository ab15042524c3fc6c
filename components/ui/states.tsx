"use client";

import { usePathname } from "next/navigation";
import type { MouseEvent, ReactNode } from "react";
import { apiFetch, asSentence, isUnauthorized } from "@/components/api-client";
import { EMPTY_WORDS, loadWords, SESSION_ENDED, type EmptyKind, type StateSubject } from "@/components/state-words";
import { Button, buttonStyles } from "./button";
import { Card } from "./card";
import { cx } from "./cx";

/**
 * The one set of loading / error / empty / session-ended states of every page (chat, task list, task detail, review,
 * escalations, audit). The words come from components/state-words.ts; a page names its subject and picks a shape.
 * `ErrorState` shows the session-ended state by itself when the error is a 401, so no page can show a raw
 * "unauthorized" where the way back is to sign in again.
 */

/** How a loading state looks: a table's rows, a conversation's turns, a short list, or a plain block. */
export type LoadingShape = "block" | "rows" | "conversation" | "list";

export function LoadingState({
  subject,
  label,
  shape = "block",
  className,
}: {
  subject?: StateSubject;
  label?: string;
  shape?: LoadingShape;
  className?: string;
}) {
  const text = label ?? (subject ? loadWords(subject).loading : "Loading…");
  const status = (
    <p role="status" className={shape === "block" ? "flex items-center gap-2 text-sm text-muted" : "sr-only"}>
      {shape === "block" && <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-accent" />}
      {text}
    </p>
  );
  if (shape === "block") {
    return (
      <Card className={cx("flex min-h-40 items-center justify-center", className)} aria-busy="true" data-testid="state-loading">
        {status}
      </Card>
    );
  }
  if (shape === "list") {
    return (
      <div aria-busy="true" className={className} data-testid="state-loading">
        {status}
        <ul aria-hidden="true" className="space-y-2 px-1">
          {[0, 1, 2].map((i) => (
            <li key={i} className="h-9 animate-pulse rounded-md bg-line/60" />
          ))}
        </ul>
      </div>
    );
  }
  if (shape === "conversation") {
    return (
      <div aria-busy="true" className={cx("space-y-8", className)} data-testid="state-loading">
        {status}
        {[0, 1].map((i) => (
          <div key={i} aria-hidden="true" className="space-y-3">
            <div className="flex justify-end">
              <span className="h-10 w-56 max-w-[70%] animate-pulse rounded-2xl bg-line/70" />
            </div>
            <div className="flex gap-3">
              <span className="size-7 animate-pulse rounded-full bg-line/70" />
              <div className="flex-1 space-y-3">
                <span className="block h-5 w-2/3 animate-pulse rounded bg-line/70" />
                <span className="block h-24 w-full animate-pulse rounded-card bg-line/50" />
              </div>
            </div>
          </div>
        ))}
      </div>
    );
  }
  return (
    <div className={cx("overflow-hidden rounded-card border border-line bg-surface shadow-xs", className)} aria-busy="true" data-testid="state-loading">
      {status}
      <div aria-hidden="true" className="border-b border-line px-5 py-3">
        <div className="flex gap-2 overflow-hidden">
          {[14, 16, 20, 20, 20, 16].map((w, i) => (
            <span key={i} className="h-7 shrink-0 animate-pulse rounded-full bg-line/70" style={{ width: `${w * 0.25}rem` }} />
          ))}
        </div>
      </div>
      <ul aria-hidden="true" className="divide-y divide-line">
        {[0, 1, 2].map((i) => (
          <li key={i} className="flex items-center gap-6 px-5 py-4">
            <span className="h-4 w-1/3 animate-pulse rounded bg-line/70" />
            <span className="h-5 w-16 animate-pulse rounded-full bg-line/70" />
            <span className="ml-auto h-4 w-24 animate-pulse rounded bg-line/70" />
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The first load failed. A 401 is not an error the page can retry: it is the session-ended state. `compact` is for
 * a side list (the chat's conversation history): one line and a retry link, no card.
 */
export function ErrorState({
  subject,
  error,
  onRetry,
  title,
  compact = false,
  className,
}: {
  subject: StateSubject;
  error: unknown;
  onRetry?: () => void;
  /** Only for callers kept from before this set (console admin, incidents): their own heading. */
  title?: string;
  compact?: boolean;
  className?: string;
}) {
  if (isUnauthorized(error)) return <SessionEnded compact={compact} className={className} />;
  const words = loadWords(subject);
  const message = error instanceof Error ? asSentence(error.message) : "";
  if (compact) {
    return (
      <p role="alert" className={cx("px-1 text-sm text-muted", className)} data-testid="state-error">
        {title ?? words.failed}.{" "}
        {onRetry && (
          <button type="button" onClick={onRetry} className="font-medium text-accent underline-offset-2 hover:underline">
            Try again
          </button>
        )}
      </p>
    );
  }
  return (
    <Card className={cx("border-danger/30 px-6 py-8 text-center", className)} data-testid="state-error">
      <div role="alert">
        <h2 className="text-base font-semibold text-danger">{title ?? words.failed}</h2>
        <p className="mx-auto mt-2 max-w-lg text-sm leading-6 text-ink">
          {message} <span className="text-muted">{words.failedHint}</span>
        </p>
      </div>
      {onRetry && (
        <Button variant="secondary" size="sm" className="mt-4" onClick={onRetry}>
          Try again
        </Button>
      )}
    </Card>
  );
}

/** A refresh failed while the data loaded before is still on screen: say so above it, never silently. */
export function StaleNotice({ subject, error, className }: { subject: StateSubject; error: unknown; className?: string }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className={cx("rounded-md bg-warn-soft px-4 py-2 text-sm text-warn", className)} data-testid="state-stale">
      {loadWords(subject).stale(message)}
    </p>
  );
}

/**
 * Nothing to show. `kind` picks the words (components/state-words.ts); `children` adds what only this page can offer
 * (suggestions to pick, a link, a "clear filters" button) below them.
 */
export function EmptyState({
  kind,
  children,
  className,
  testId,
  mark = false,
  compact = false,
}: {
  kind: EmptyKind;
  children?: ReactNode;
  className?: string;
  testId?: string;
  mark?: boolean;
  /** One line, no card: for a side list. */
  compact?: boolean;
}) {
  const words = EMPTY_WORDS[kind];
  if (compact) {
    return (
      <p className={cx("px-1 text-sm text-muted", className)} data-testid={testId ?? "state-empty"}>
        {words.title} {words.body}
      </p>
    );
  }
  return (
    <div
      className={cx("flex flex-col items-center rounded-card border border-dashed border-line bg-surface/60 px-5 py-10 text-center", className)}
      data-testid={testId ?? "state-empty"}
    >
      {mark && (
        <span aria-hidden="true" className="mb-4 grid size-10 place-items-center rounded-full bg-accent-soft">
          <span className="size-3 rounded-sm bg-accent" />
        </span>
      )}
      <h2 className="text-base font-semibold text-ink">{words.title}</h2>
      {words.body && <p className="mx-auto mt-2 max-w-lg text-sm leading-6 text-muted">{words.body}</p>}
      {children && <div className="mt-4 text-sm text-muted">{children}</div>}
    </div>
  );
}

/**
 * The session ended (the API answered 401: the token was revoked, the session expired or was signed out elsewhere).
 * The way back is a link to this very page: signed out, every page shows its sign-in and returns here. The stale
 * cookie is cleared first, so the server renders the sign-in form rather than trusting it.
 */
export function SessionEnded({ compact = false, className }: { compact?: boolean; className?: string }) {
  const here = usePathname() ?? "/sign-in";
  const signInAgain = async (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    await apiFetch("/api/session", { method: "DELETE" }).catch(() => {});
    window.location.assign(`${window.location.pathname}${window.location.search}`);
  };
  if (compact) {
    return (
      <p role="alert" className={cx("px-1 text-sm text-muted", className)} data-testid="session-ended">
        <a href={here} onClick={signInAgain} className="font-medium text-accent underline-offset-2 hover:underline">
          {SESSION_ENDED.title}
        </a>
      </p>
    );
  }
  return (
    <Card className={cx("mx-auto max-w-lg px-6 py-10 text-center", className)} data-testid="session-ended">
      <div role="alert">
        <h2 className="text-base font-semibold text-ink">{SESSION_ENDED.title}</h2>
        <p className="mt-2 text-sm leading-6 text-muted">{SESSION_ENDED.body}</p>
      </div>
      <a href={here} onClick={signInAgain} className={buttonStyles({ size: "sm", className: "mt-4" })}>
        {SESSION_ENDED.action}
      </a>
    </Card>
  );
}
