"use client";

import { loadWords } from "@/components/state-words";
import { Card } from "@/components/ui/card";
import type { LedgerEventRecord } from "../api";
import { shortTime } from "../format";

/** Every event of the task, as the ledger recorded it (folded away: for support and the curious). */
export function EventHistory({ events }: { events: LedgerEventRecord[] }) {
  return (
    <Card as="section" aria-labelledby="events-title" className="p-0">
      <details>
        <summary className="cursor-pointer px-5 py-3 text-sm font-semibold text-ink">
          Raw event history <span className="font-normal text-muted">({events.length} events)</span>
        </summary>
        <h2 id="events-title" className="sr-only">
          Raw event history
        </h2>
        <EventTable events={events} />
      </details>
    </Card>
  );
}

function EventTable({ events }: { events: LedgerEventRecord[] }) {
  if (!events.length)
    return (
      <p role="status" className="px-5 pb-4 text-sm text-muted">
        {loadWords("taskHistory").loading}
      </p>
    );
  return (
    <div className="max-h-[28rem] overflow-auto border-t border-line">
      <table className="w-full min-w-[48rem] text-left text-xs">
        <thead className="sticky top-0 bg-canvas text-muted">
          <tr>
            <th className="px-5 py-2 font-medium">#</th>
            <th className="px-3 py-2 font-medium">Time</th>
            <th className="px-3 py-2 font-medium">Event</th>
            <th className="px-3 py-2 font-medium">Entity</th>
            <th className="px-3 py-2 font-medium">State</th>
            <th className="px-3 py-2 font-medium">Actor</th>
            <th className="px-5 py-2 font-medium">Reason / data</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line font-mono">
          {events.map((e) => (
            <tr key={e.seq} className="align-top">
              <td className="px-5 py-1.5 text-muted tabular-nums">{e.seq}</td>
              <td className="px-3 py-1.5 whitespace-nowrap text-muted">{shortTime(e.createdAt)}</td>
              <td className="px-3 py-1.5 text-ink">{e.type}</td>
              <td className="px-3 py-1.5 text-muted">{e.entityType}</td>
              <td className="px-3 py-1.5 whitespace-nowrap">{e.fromState || e.toState ? `${e.fromState ?? "∅"} → ${e.toState ?? "∅"}` : ""}</td>
              <td className="px-3 py-1.5 text-muted">{e.actor}</td>
              <td className="max-w-md px-5 py-1.5 break-words text-muted">
                {e.reason}
                {e.data != null && <span className="block text-[11px]">{JSON.stringify(e.data).slice(0, 300)}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
