/** The audit's search fields (shared by the server page, which reads them from the URL, and the client form). */
export const AUDIT_FIELDS = ["user", "conversationId", "taskId", "tool", "from", "to"] as const;
export type AuditFields = Partial<Record<(typeof AUDIT_FIELDS)[number], string>>;
