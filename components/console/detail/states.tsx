import type { ReactNode } from "react";
import { ErrorState, LoadingState, SessionEnded } from "@/components/ui/states";

/**
 * The console's older names for the shared states (components/ui/states.tsx), kept for the pages that still name
 * their own words (admin sections, metrics, incidents). New code uses components/ui/states.tsx directly.
 */
export function LoadingBlock({ label }: { label: string }) {
  return <LoadingState label={label} />;
}

export function ErrorBlock({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return <ErrorState subject="task" title={title} error={new Error(message)} onRetry={onRetry} />;
}

export function EmptyBlock({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-card border border-dashed border-line bg-surface/60 px-5 py-10 text-center" data-testid="state-empty">
      <p className="text-sm font-medium text-ink">{title}</p>
      {children && <div className="mt-1 text-sm text-muted">{children}</div>}
    </div>
  );
}

export const SessionEndedBlock = SessionEnded;

/** A small section heading with an optional count. */
export function SectionTitle({ children, count, id }: { children: ReactNode; count?: number; id?: string }) {
  return (
    <h2 id={id} className="flex items-center gap-2 text-sm font-semibold text-ink">
      {children}
      {count !== undefined && <span className="rounded-full bg-canvas px-1.5 text-xs font-medium text-muted tabular-nums">{count}</span>}
    </h2>
  );
}
