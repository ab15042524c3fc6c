import type { AuditReport } from "./query-audit";

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. Formula-leading cells are neutralised. */
export function csvField(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const COLUMNS = [
  "record",
  "task_id",
  "task_title",
  "owner_id",
  "owner_email",
  "conversation_id",
  "tool",
  "operation_id",
  "external_record_id",
  "external_version",
  "outcome",
  "reversible",
  "recorded_at",
  "who",
  "when",
  "detail",
] as const;

/**
 * One CSV for the whole report: a row per task searched (its stage, and who stopped it when, why), per step
 * and its outcome (the one vocabulary's kind and words), per external effect, per decision about it, per
 * compensation, per item still uncertain and per archive file holding older history (lib/retention); the first column
 * says which. A task that changed nothing outside Stopline is still in the file, as its task row and its steps.
 */
export function auditToCsv(report: AuditReport): string {
  const rows: unknown[][] = [COLUMNS as unknown as string[]];
  const task = new Map(report.tasks.map((t) => [t.id, t]));
  for (const t of report.tasks) {
    rows.push([
      "task",
      t.id,
      t.title,
      t.ownerId,
      t.ownerEmail,
      t.conversationId,
      "",
      "",
      "",
      "",
      t.stage,
      "",
      t.createdAt,
      t.cancelRequestedBy,
      t.cancelRequestedAt,
      t.cancelReason,
    ]);
    for (const o of t.outcomes) {
      rows.push([
        "outcome",
        t.id,
        t.title,
        t.ownerId,
        t.ownerEmail,
        t.conversationId,
        o.toolName,
        "",
        "",
        "",
        o.kind,
        "",
        "",
        "",
        t.settledAt ?? t.endedAt,
        o.label,
      ]);
    }
  }
  for (const e of report.effects) {
    rows.push([
      "effect",
      e.taskId,
      e.taskTitle,
      e.ownerId,
      e.ownerEmail,
      e.conversationId,
      e.toolName,
      e.operationId,
      e.externalRecordId,
      e.externalVersion,
      e.outcome,
      e.reversible,
      e.recordedAt,
      "",
      "",
      e.description,
    ]);
    for (const d of e.decisions) {
      rows.push([
        "decision",
        e.taskId,
        e.taskTitle,
        e.ownerId,
        e.ownerEmail,
        e.conversationId,
        e.toolName,
        e.operationId,
        e.externalRecordId,
        "",
        d.event.replace("review_item.", ""),
        "",
        "",
        d.actor,
        d.at,
        d.reason,
      ]);
    }
  }
  for (const c of report.compensations) {
    const t = task.get(c.taskId);
    rows.push([
      "compensation",
      c.taskId,
      t?.title,
      t?.ownerId,
      t?.ownerEmail,
      t?.conversationId,
      "",
      "",
      c.externalRecordId,
      c.boundToVersion,
      c.status,
      "",
      "",
      c.approvedBy,
      c.decidedAt,
      c.resolution,
    ]);
  }
  for (const u of report.uncertain) {
    const t = task.get(u.taskId);
    rows.push(["uncertain", u.taskId, t?.title, t?.ownerId, t?.ownerEmail, t?.conversationId, u.toolName, "", "", "", u.kind, "", u.since, "", "", u.detail]);
  }
  // History that left the ledger under the retention policy: one row per archive file, in the words support reads.
  for (const a of report.archived ?? []) {
    rows.push(["archived", "", "", "", "", "", "", "", "", "", "archived", "", a.lastSettledAt, "retention", a.archivedAt, a.line]);
  }
  return `${rows.map((r) => r.map(csvField).join(",")).join("\r\n")}\r\n`;
}

export function auditFileName(report: AuditReport, ext: "csv" | "json"): string {
  const f = report.filter;
  const subject = f.taskId
    ? `task-${f.taskId}`
    : f.conversationId
      ? `conversation-${f.conversationId}`
      : f.user
        ? `user-${f.user}`
        : f.ownerId
          ? `user-${f.ownerId}`
          : "all";
  return `stopline-audit-${subject.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80)}.${ext}`;
}

/** The export as a download: CSV or pretty JSON with Content-Disposition. */
export function auditDownload(report: AuditReport, format: "csv" | "json"): Response {
  // A byte-order mark first: Excel reads a CSV without one in the machine's legacy code page (€ → â‚¬).
  const body = format === "csv" ? `\uFEFF${auditToCsv(report)}` : JSON.stringify(report, null, 2);
  return new Response(body, {
    headers: {
      "Content-Type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${auditFileName(report, format)}"`,
      "Cache-Control": "no-store",
    },
  });
}
