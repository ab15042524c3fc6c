"use client";

import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { toolLabel } from "@/components/chat/labels";
import type { CancellationSummarySchema } from "@/lib/api/schemas";
import { sinceLine } from "@/lib/outcomes";
import { ApiError, apiFetch } from "@/components/api-client";

type Summary = z.output<typeof CancellationSummarySchema>;

/**
 * "Since the Stop" on the console's task detail and the audit (issue 20, item 4): what steps did after the Stop
 * settled, added below the settled verdict — the summary's own `since_settlement` lines through `sinceLine`, the same
 * data and words the chat shows. `version` changes whenever a step of the task changes (a late end adds a line).
 */
export function SinceStop({ taskId, stopped, version }: { taskId: string; stopped: boolean; version: string }) {
  const query = useQuery({
    queryKey: ["task-cancellation-summary", taskId, version],
    enabled: stopped,
    queryFn: async ({ signal }) => {
      try {
        return await apiFetch<Summary>(`/api/tasks/${encodeURIComponent(taskId)}/cancellation`, { signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
  const since = query.data?.since_settlement ?? [];
  if (since.length === 0) return null;
  return (
    <div className="mt-3 border-t border-line pt-3" data-testid="since-settlement">
      <h3 className="text-sm font-semibold text-ink">Since the Stop</h3>
      <ul className="mt-1 space-y-1 text-sm text-ink">
        {since.map((x) => (
          <li key={x.tool_call_id} data-testid="since-line">
            {sinceLine(x.sentence, toolLabel(x.tool_name))}
          </li>
        ))}
      </ul>
    </div>
  );
}
