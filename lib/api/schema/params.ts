import { z } from "zod";
import { id } from "./primitives";

// ---- path parameters -----------------------------------------------------------------------------
export const TaskParams = z.object({ taskId: id });
export const WorkItemParams = z.object({ id });
