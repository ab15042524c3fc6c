import type { Database } from "../db/client";
import { createTaskOnPg } from "./pg-hot-path";
import { TaskStage, type RiskLevel } from "./states";
import { writeLedger } from "./write";
import { LedgerEvent } from "./events";

export interface CreateTaskInput {
  title: string;
  ownerId: string;
  conversationId?: string | null;
  riskLevel?: RiskLevel;
}

export async function createTask(database: Database, input: CreateTaskInput, actor: string) {
  if (database.pg) {
    // One statement (the row and its event) on the driver: task creation is on every agent turn's path.
    return createTaskOnPg(database.pg, { title: input.title, ownerId: input.ownerId, conversationId: input.conversationId ?? null, riskLevel: input.riskLevel ?? "low" }, actor);
  }
  return writeLedger(database, async (w) => {
    const task = await w.tx.task.create({
      data: {
        title: input.title,
        ownerId: input.ownerId,
        conversationId: input.conversationId ?? null,
        riskLevel: input.riskLevel ?? "low",
        stage: TaskStage.active,
      },
    });
    await w.event({ taskId: task.id, entityType: "task", entityId: task.id, actor, type: LedgerEvent.taskCreated, toState: task.stage, data: { title: task.title, conversationId: task.conversationId, riskLevel: task.riskLevel } });
    return task;
  });
}
