"use client";

import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import type { Capabilities } from "@/lib/auth/capabilities";
import { shortTime } from "../format";
import { SectionTitle } from "./states";
import type { TaskDetail } from "./types";

/** What about this task waits for a person, and what people decided. */
export function TaskReviews({ task, can }: { task: TaskDetail; can: Capabilities }) {
  return (
    <Card as="section" aria-labelledby="review-title">
      <SectionTitle id="review-title" count={task.reviewItems.length}>
        Review items
      </SectionTitle>
      {task.reviewItems.length === 0 ? (
        <p className="mt-2 text-sm text-muted">Nothing about this task waits for a person.</p>
      ) : (
        <ul className="mt-3 space-y-2">
          {task.reviewItems.map((r) => (
            <li key={r.id} className="text-sm">
              <div className="flex items-center justify-between gap-2">
                <span className="min-w-0 truncate">{r.subject}</span>
                <Badge tone={r.status === "escalated" ? "danger" : r.status === "open" ? "warn" : "ok"}>{r.status}</Badge>
              </div>
              {(r.status === "open" || r.status === "escalated") && (
                <Link href={`/console/review#${r.id}`} className="text-xs text-accent hover:underline">
                  {can.decideReviews ? "Decide in the review queue" : "See it in the review queue"}
                </Link>
              )}
              {r.decidedBy && (
                <p className="text-xs text-muted">
                  {r.status} by {r.decidedBy}
                  {r.decidedAt && <> at {shortTime(r.decidedAt)}</>}
                  {r.resolution && <> — {r.resolution}</>}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
