"use client";

import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { cx } from "@/components/ui/cx";
import { apiFetch, asSentence, isUnauthorized } from "../api";
import { fullTime, shortTime } from "../format";
import { serviceNoun, WITNESS_REFRESH_MS, witnessKey, type DemoWitness, type DemoWitnessEntry } from "./types";

const LIMIT = 30;

/** What the service did that a person should notice: it misbehaved on purpose, or someone else acted. */
const NOTABLE = new Set(["cancel_ignored", "release_failed", "record_edited_by_other_staff"]);

const words = (action: string) => action.replace(/_/g, " ");

function describeValue(value: unknown): string {
  if (Array.isArray(value) && value.every((v) => v && typeof v === "object" && "sku" in v && "quantity" in v)) {
    return value.map((v: { sku: unknown; quantity: unknown }) => `${String(v.quantity)} × ${String(v.sku)}`).join(", ");
  }
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** A witness entry's detail as "key value · key value" (the full JSON is in the title). */
function describeDetail(detail: unknown): string | null {
  if (detail === null || detail === undefined) return null;
  if (typeof detail !== "object" || Array.isArray(detail)) return describeValue(detail);
  return Object.entries(detail as Record<string, unknown>)
    .map(([key, value]) => `${key} ${describeValue(value)}`)
    .join(" · ");
}

/**
 * The service's witness log — what it really did, from its own records — newest first, re-read every few
 * seconds. Compare it with what Stopline's summary says happened.
 */
export function WitnessLog({ service }: { service: string }) {
  const id = useId();
  const query = useQuery({
    queryKey: witnessKey(service),
    queryFn: ({ signal }) => apiFetch<DemoWitness>(`/api/demo/services/${service}/witness?limit=${LIMIT}`, { signal }),
    refetchInterval: (q) => (isUnauthorized(q.state.error) ? false : WITNESS_REFRESH_MS),
    staleTime: 0,
    retry: false, // the next refresh is a retry
  });
  const entries = query.data ? [...query.data.witness].reverse() : [];
  const now = new Date();

  return (
    <section aria-labelledby={`${id}-title`} className="border-t border-line bg-canvas/50 px-5 py-4">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h3 id={`${id}-title`} className="text-sm font-semibold text-ink">
          What it really did
        </h3>
        <p className="text-xs text-muted">
          Its own witness log, refreshed every {WITNESS_REFRESH_MS / 1000} s
          {query.dataUpdatedAt > 0 && (
            <>
              {" "}
              · <time dateTime={new Date(query.dataUpdatedAt).toISOString()}>{shortTime(new Date(query.dataUpdatedAt).toISOString(), now)}</time>
            </>
          )}
        </p>
      </div>

      {query.isError && (
        <p role="alert" className="mt-2 rounded-md bg-warn-soft px-3 py-2 text-xs text-warn">
          {query.data ? "Could not refresh the log" : "Could not load the log"}: {asSentence((query.error as Error).message)}
          {query.data && " Showing what was read before."}
        </p>
      )}

      {query.isPending ? (
        <p className="mt-3 text-sm text-muted" aria-busy="true">
          Loading…
        </p>
      ) : query.data && entries.length === 0 ? (
        <p className="mt-3 text-sm text-muted">Nothing yet. Calls to the {serviceNoun(service)} appear here as it handles them.</p>
      ) : entries.length > 0 ? (
        <ol
          aria-label={`Witness log of the ${serviceNoun(service)}, newest first`}
          tabIndex={0}
          data-testid={`witness-${service}`}
          className="mt-3 max-h-60 space-y-px overflow-y-auto rounded-md border border-line bg-surface text-sm"
        >
          {entries.map((entry: DemoWitnessEntry) => {
            const detail = describeDetail(entry.detail);
            return (
              <li key={entry.seq} className="grid grid-cols-[auto_1fr] gap-x-3 border-b border-line/60 px-3 py-1.5 last:border-b-0">
                <time dateTime={entry.at} title={fullTime(entry.at)} className="pt-px text-xs whitespace-nowrap text-muted tabular-nums">
                  {shortTime(entry.at, now)}
                </time>
                <div className="min-w-0">
                  <span className={cx("font-medium", NOTABLE.has(entry.action) ? "text-warn" : "text-ink")}>{words(entry.action)}</span>
                  {entry.subject && <span className="ml-2 font-mono text-xs text-muted">{entry.subject}</span>}
                  {detail && (
                    <span className="block truncate font-mono text-xs text-muted" title={JSON.stringify(entry.detail)}>
                      {detail}
                    </span>
                  )}
                </div>
              </li>
            );
          })}
        </ol>
      ) : null}
      {query.data && query.data.omitted > 0 && (
        <p className="mt-2 text-xs text-muted">
          Showing the latest {LIMIT} of {LIMIT + query.data.omitted} entries.
        </p>
      )}
    </section>
  );
}
