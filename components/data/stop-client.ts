import { ApiError, apiFetch } from "@/components/api-client";
import type { CancelResponseSchema } from "@/lib/api/schemas";
import type { z } from "zod";

export type CancelResponse = z.output<typeof CancelResponseSchema>;

/** Worth repeating: the network or the server failed, not the request. */
export const isTransient = (error: unknown) => error instanceof ApiError && (error.status === 0 || error.status >= 500);

/**
 * The one Stop client of every page (chat and console). A Stop is idempotent at the API (a repeat returns the first
 * boundary), so one whose answer was lost to the network or a server hiccup is sent again: up to `attempts` times,
 * 250 ms, 500 ms, 1 s apart. A refusal (4xx) is final and thrown at once.
 */
export async function withStopRetries<T>(send: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isTransient(error) || attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 250 * 2 ** (attempt - 1)));
    }
  }
}

/** Stop a task (POST /api/tasks/{id}/cancel), with the reason the summary and the audit show. */
export const sendStop = (taskId: string, reason: string | null, attempts = 4) =>
  withStopRetries(
    () => apiFetch<CancelResponse>(`/api/tasks/${encodeURIComponent(taskId)}/cancel`, { method: "POST", body: reason ? { reason } : {} }),
    attempts,
  );
