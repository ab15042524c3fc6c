"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { apiFetch, ApiError, asSentence, isUnauthorized } from "../api";
import { SignOutButton } from "../sign-out-button";
import { ServiceCard } from "./service-card";
import { DEMO_SERVICES_KEY, FAULTS_REFRESH_MS, type DemoServiceList } from "./types";

/**
 * The demo world's fault controls: one card per service (shop, crm, mailer, reports, inference) with the
 * faults that apply to it, saved through POST /api/demo/services/{service}/faults, and the service's own
 * witness log below. The faults in force are re-read now and then, so a change made through the API shows.
 */
export function DemoConsole({ signedInAs }: { signedInAs: string }) {
  const query = useQuery({
    queryKey: DEMO_SERVICES_KEY,
    queryFn: ({ signal }) => apiFetch<DemoServiceList>("/api/demo/services", { signal }),
    refetchInterval: (q) => (isUnauthorized(q.state.error) ? false : FAULTS_REFRESH_MS),
    // Not running (503) or signed out (401) will not change by retrying at once.
    retry: (failures, error) => !(error instanceof ApiError && (error.status === 401 || error.status === 503)) && failures < 2,
  });
  const sessionEnded = isUnauthorized(query.error);

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="max-w-2xl space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Demo services</h1>
          <p className="text-sm leading-6 text-muted">
            Small services that stand for the external systems agents act on. Make them misbehave the way real systems do, then stop a task and compare
            Stopline&apos;s summary with what each service really did.
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <span className="text-sm text-muted">
            Signed in as <span className="font-medium text-ink">{signedInAs}</span>
          </span>
          <SignOutButton />
        </div>
      </div>

      {sessionEnded ? (
        <SessionEnded />
      ) : query.isPending ? (
        <LoadingState />
      ) : query.isError && !query.data ? (
        <ErrorState
          message={asSentence((query.error as Error).message)}
          unavailable={query.error instanceof ApiError && query.error.status === 503}
          onRetry={() => void query.refetch()}
        />
      ) : query.data ? (
        <>
          <p className="text-sm leading-6 text-muted">
            Faults set here apply to every call the service receives at <code className="font-mono text-xs text-ink">{query.data.demoUrl}</code>, unless the
            call brings its own in an <code className="font-mono text-xs text-ink">X-Demo-Faults</code> header. Each card shows only the faults that service
            acts on.
          </p>
          {query.isRefetchError && (
            <p role="alert" className="rounded-md bg-warn-soft px-4 py-2 text-sm text-warn">
              Could not refresh the faults in force ({(query.error as Error).message}); showing what was read before.
            </p>
          )}
          <div className="grid grid-cols-[minmax(0,1fr)] gap-5 lg:grid-cols-2">
            {query.data.services.map((service) => (
              <ServiceCard key={service.name} service={service} />
            ))}
          </div>
        </>
      ) : null}
    </div>
  );
}

function LoadingState() {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-5 lg:grid-cols-2" aria-busy="true">
      <p role="status" className="sr-only">
        Loading the demo services…
      </p>
      {[0, 1].map((i) => (
        <div key={i} aria-hidden="true" className="space-y-3 rounded-card border border-line bg-surface p-5 shadow-xs">
          <span className="block h-5 w-1/4 animate-pulse rounded bg-line/70" />
          <span className="block h-4 w-3/4 animate-pulse rounded bg-line/70" />
          {[0, 1, 2].map((j) => (
            <span key={j} className="block h-8 animate-pulse rounded bg-line/50" />
          ))}
        </div>
      ))}
    </div>
  );
}

function ErrorState({ message, unavailable, onRetry }: { message: string; unavailable: boolean; onRetry: () => void }) {
  return (
    <Card role="alert" className="border-danger/30 px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-danger">{unavailable ? "The demo services are not answering" : "The demo services could not be loaded"}</h2>
      <p className="mx-auto mt-2 max-w-xl text-sm leading-6 text-muted">{message}</p>
      <Button variant="secondary" size="sm" className="mt-4" onClick={onRetry}>
        Try again
      </Button>
    </Card>
  );
}

function SessionEnded() {
  const router = useRouter();
  return (
    <Card role="alert" className="px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-ink">Your session has ended</h2>
      <p className="mt-2 text-sm text-muted">The token was revoked or the session expired. Sign in again to continue.</p>
      <Button
        size="sm"
        className="mt-4"
        onClick={async () => {
          // Clear the stale cookie first, so the server renders the sign-in form.
          await apiFetch("/api/session", { method: "DELETE" }).catch(() => {});
          router.refresh();
        }}
      >
        Sign in again
      </Button>
    </Card>
  );
}
