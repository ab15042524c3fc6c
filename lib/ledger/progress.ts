import { z } from "zod";

/**
 * What running code may say about how far it got. Informational: it never changes a state. Pure (no server
 * imports): the HTTP schemas and the SDK use it too.
 */
export const ProgressReport = z.strictObject({
  done: z.number().finite().min(0),
  total: z.number().finite().positive().optional(),
  /** What is counted ("rows", "files", "steps"). */
  unit: z.string().trim().min(1).max(40).optional(),
  message: z.string().trim().min(1).max(300).optional(),
});
export type ProgressReport = z.infer<typeof ProgressReport>;

/** As stored on the work item and sent in the `work_item.progress` event: with the ledger's time. */
export const StoredProgress = ProgressReport.extend({ at: z.string() });
export type StoredProgress = z.infer<typeof StoredProgress>;
