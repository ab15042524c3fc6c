"use client";

import { useEffect, useState } from "react";
import { useEscalationChannels } from "@/components/data/use-escalation-channels";
import { useReviewItems } from "@/components/data/use-review-items";
import { ChannelHealth } from "@/lib/escalation/channel-health";
import { isOpenReview } from "@/lib/ledger/states";

const REFRESH_MS = 15_000;

/** The clock for "overdue": a deadline passes while the page is open. */
function useMinuteClock() {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** "3 · 2 overdue" after the review queue's link: what waits for a decision, and how much of it is past its deadline. */
export function ReviewCount() {
  const now = useMinuteClock();
  const reviews = useReviewItems({ refetchInterval: REFRESH_MS });
  if (!reviews.data) return null;
  const open = reviews.data.reviewItems.filter((r) => isOpenReview(r.status));
  if (!open.length) return null;
  const overdue = open.filter((r) => Date.parse(r.deadline) <= now).length;
  return (
    <span data-testid="nav-review-count" className="ml-1.5 text-xs tabular-nums">
      <span className="rounded-full bg-accent-soft px-1.5 py-0.5 font-medium text-accent-strong">{open.length}</span>
      {overdue > 0 && <span className="ml-1 font-medium text-danger">· {overdue} overdue</span>}
    </span>
  );
}

/** "1 failing" after the escalations link: active channels whose latest delivery attempt failed. */
export function EscalationCount() {
  const channels = useEscalationChannels({ refetchInterval: REFRESH_MS });
  const failing = channels.data?.channels.filter((c) => c.health.health === ChannelHealth.failing).length ?? 0;
  if (!failing) return null;
  return (
    <span data-testid="nav-escalation-count" className="ml-1.5 text-xs font-medium text-danger">
      {failing} failing
    </span>
  );
}
