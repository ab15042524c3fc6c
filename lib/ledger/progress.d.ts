import { z } from "zod";
/**
 * What running code may say about how far it got. Informational: it never changes a state. Pure (no server
 * imports): the HTTP schemas and the SDK use it too.
 */
export declare const ProgressReport: z.ZodObject<{
    done: z.ZodNumber;
    total: z.ZodOptional<z.ZodNumber>;
    unit: z.ZodOptional<z.ZodString>;
    message: z.ZodOptional<z.ZodString>;
}, z.core.$strict>;
export type ProgressReport = z.infer<typeof ProgressReport>;
/** As stored on the work item and sent in the `work_item.progress` event: with the ledger's time. */
export declare const StoredProgress: z.ZodObject<{
    done: z.ZodNumber;
    total: z.ZodOptional<z.ZodNumber>;
    unit: z.ZodOptional<z.ZodString>;
    message: z.ZodOptional<z.ZodString>;
    at: z.ZodString;
}, z.core.$strict>;
export type StoredProgress = z.infer<typeof StoredProgress>;
/** The ledger event that carries a progress report (data: StoredProgress); LedgerEvent.workItemProgress. */
export declare const PROGRESS_EVENT: "work_item.progress";
