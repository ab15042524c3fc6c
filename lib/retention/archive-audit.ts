import type { AuditCompensation, AuditEffect, AuditReport, AuditTask, AuditUncertain } from "../audit/query-audit";
import type { ArchiveContent } from "./archive-file";

/** What export-tasks.ts froze of support's audit for one task (the `audit` of its line). */
interface FrozenAudit {
  task: AuditTask | null;
  effects: AuditEffect[];
  compensations: AuditCompensation[];
  uncertain: AuditUncertain[];
}

/**
 * The archive reader: the audit support saw for archived tasks, rebuilt from an archive file's lines as one report —
 * the same shape as `GET /api/audit`, so the same CSV (`auditToCsv`) and JSON come out. `taskIds`: only these tasks
 * (each must be in the file). Nothing is read from the database: the file is the record once the tasks have left.
 */
export function auditOfArchive(content: ArchiveContent, taskIds: string[] = []): AuditReport {
  const lines = taskIds.length ? content.tasks.filter((l) => taskIds.includes(l.task.id)) : content.tasks;
  const missing = taskIds.filter((id) => !content.tasks.some((l) => l.task.id === id));
  if (missing.length) throw new Error(`the archive holds no task ${missing.join(", ")} (it holds ${content.header.taskIds.join(", ") || "none"})`);
  const frozen = lines.map((l) => l.audit as FrozenAudit);
  return {
    filter: taskIds.length === 1 ? { taskId: taskIds[0] } : {},
    generatedAt: content.header.createdAt,
    tasks: frozen.flatMap((a) => (a.task ? [a.task] : [])),
    effects: frozen.flatMap((a) => a.effects),
    compensations: frozen.flatMap((a) => a.compensations),
    uncertain: frozen.flatMap((a) => a.uncertain),
    archived: [],
  };
}
