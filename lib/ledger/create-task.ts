import { onEngine, type Database } from "../db/client";
import type { Task } from "../db/generated/sqlite/client.ts";
import { LedgerEvent } from "./events";
import { createTaskOnPg } from "./sql/create-task";
import { TaskStage, type RiskLevel } from "./states";
import { writeLedger } from "./write";

export interface CreateTaskInput {
  title: string;
  ownerId: string;
  conversationId?: string | null;
  riskLevel?: RiskLevel;
  /** Who creates it (principalRef: "token:<id>" / "person:<id>"); a token's kill switch finds its tasks by it. */
  createdById?: string | null;
}

export async function createTask(database: Database, input: CreateTaskInput, actor: string): Promise<Task> {
  const task = await insertTask(database, { ...input, turnId: null }, actor);
  return task!;
}

/**
 * The task of one conversation turn (the idempotency key the chat sends with a message): created if the
 * conversation has none for that turn yet, else the existing one (`created: false`) — which may already carry
 * a boundary, when the person pressed Stop before the message arrived (lib/agent/stop-turn.ts).
 */
export async function createTurnTask(
  database: Database,
  input: CreateTaskInput & { conversationId: string; turnId: string },
  actor: string,
): Promise<{ task: Task; created: boolean }> {
  const task = await insertTask(database, input, actor).catch((error: unknown) => {
    if ((error as { code?: string })?.code === "P2002") return null; // the same turn was inserted first by another request
    throw error;
  });
  if (task) return { task, created: true };
  const existing = await database.prisma.task.findUniqueOrThrow({
    where: { conversationId_turnId: { conversationId: input.conversationId, turnId: input.turnId } },
  });
  return { task: existing, created: false };
}

async function insertTask(database: Database, input: CreateTaskInput & { turnId: string | null }, actor: string): Promise<Task | null> {
  return onEngine(database, {
    // One statement (the row and its event) on the driver: task creation is on every agent turn's path.
    postgres: (pg) =>
      createTaskOnPg(
        pg,
        {
          title: input.title,
          ownerId: input.ownerId,
          conversationId: input.conversationId ?? null,
          riskLevel: input.riskLevel ?? "low",
          turnId: input.turnId,
          createdById: input.createdById ?? null,
        },
        actor,
      ),
    sqlite: () =>
      writeLedger(database, async (w) => {
        const task = await w.tx.task.create({
          data: {
            title: input.title,
            ownerId: input.ownerId,
            conversationId: input.conversationId ?? null,
            riskLevel: input.riskLevel ?? "low",
            stage: TaskStage.active,
            turnId: input.turnId,
            createdById: input.createdById ?? null,
          },
        });
        await w.event({
          taskId: task.id,
          entityType: "task",
          entityId: task.id,
          actor,
          type: LedgerEvent.taskCreated,
          toState: task.stage,
          data: { title: task.title, conversationId: task.conversationId, riskLevel: task.riskLevel, turnId: task.turnId },
        });
        return task;
      }),
  });
}
