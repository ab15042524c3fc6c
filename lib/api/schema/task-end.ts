import { z } from "zod";
import { id, text } from "./primitives";
import { ReviewItemSchema, TaskSchema } from "./resources";

// ---- a task's end, and undoing what it did -----------------------------------------------------------
export const CompleteTaskBody = z.strictObject({ note: z.string().trim().max(2000).optional() });
export const FailTaskBody = z.strictObject({ error: text(2000) });
export const FinishTaskResponseSchema = z.object({
  task: TaskSchema,
  /** True when the task had already ended this way (a repeat changes nothing). */
  alreadyFinished: z.boolean(),
});
export const ReversalBody = z.strictObject({ reason: text(1000) });
export const ReversalResponseSchema = z.object({
  taskId: id,
  /** One approve_compensation review item per reversible effect (bound to the version the agent's write produced). */
  reviewItems: z.array(ReviewItemSchema),
  /** Effects nothing can undo (an email sent): reported, not proposed. */
  irreversible: z.array(z.object({ sideEffectId: id, description: z.string() })),
  /** What happens next, in plain words. */
  message: z.string(),
});
