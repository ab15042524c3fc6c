import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

/** Designed states shared by the operator pages: loading, error, empty, session ended. */
export function LoadingBlock({ label }: { label: string }) {
  return (
    <Card className="flex min-h-40 items-center justify-center" aria-busy="true">
      <p role="status" className="flex items-center gap-2 text-sm text-muted">
        <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-accent" />
        {label}
      </p>
    </Card>
  );
}

export function ErrorBlock({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return (
    <Card className="border-danger/30 bg-danger-soft/40">
      <div role="alert">
        <p className="text-sm font-semibold text-danger">{title}</p>
        <p className="mt-1 text-sm text-ink">{message}</p>
      </div>
      {onRetry && (
        <Button variant="secondary" size="sm" className="mt-3" onClick={onRetry}>
          Try again
        </Button>
      )}
    </Card>
  );
}

export function EmptyBlock({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-card border border-dashed border-line bg-surface/60 px-5 py-10 text-center">
      <p className="text-sm font-medium text-ink">{title}</p>
      {children && <div className="mt-1 text-sm text-muted">{children}</div>}
    </div>
  );
}

export function SessionEndedBlock() {
  return (
    <ErrorBlock
      title="Your session ended"
      message="Sign in again to keep working; nothing on this page was changed."
      onRetry={() => window.location.reload()}
    />
  );
}

/** A small section heading with an optional count. */
export function SectionTitle({ children, count, id }: { children: ReactNode; count?: number; id?: string }) {
  return (
    <h2 id={id} className="flex items-center gap-2 text-sm font-semibold text-ink">
      {children}
      {count !== undefined && <span className="rounded-full bg-canvas px-1.5 text-xs font-medium text-muted tabular-nums">{count}</span>}
    </h2>
  );
}
