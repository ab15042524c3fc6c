/**
 * Is approving this compensation still possible? Read from what the service last said about the record
 * (SideEffect.evidence: the version the agent's own write produced, the version now, who wrote it since and what).
 * When the record is no longer at the version the approval is bound to, approval can only fail again (and is never
 * offered); the card shows what changed and offers the choices that remain. Pure.
 */
export interface RecordWrite {
  version: string;
  by: string;
  action: string | null;
  at: string | null;
}
export interface Conflict {
  /** The version the agent's write produced (what the approval is bound to). */
  agentVersion: string | null;
  currentVersion: string;
  editedBy: string[];
  /** The service's own account of each later write (a field diff where it gives one). */
  writes: RecordWrite[];
  checkedAt: string | null;
}

export function compensationConflict(proposal: { expectedVersion?: string | null } | null, evidence: unknown): Conflict | null {
  const e = (evidence ?? {}) as { currentVersion?: unknown; createdVersion?: unknown; editedBy?: unknown; laterWrites?: unknown; checkedAt?: unknown };
  const current = e.currentVersion == null ? null : String(e.currentVersion);
  const bound = proposal?.expectedVersion ?? null;
  if (current === null || bound === null || current === bound) return null;
  const writes = Array.isArray(e.laterWrites)
    ? (e.laterWrites as Record<string, unknown>[])
        .filter((w) => w && w.by !== "agent")
        .map((w) => ({
          version: String(w.version ?? "?"),
          by: String(w.by ?? "someone"),
          action: typeof w.action === "string" ? w.action : null,
          at: typeof w.at === "string" ? w.at : null,
        }))
    : [];
  const editedBy = Array.isArray(e.editedBy) ? (e.editedBy as unknown[]).map(String) : [...new Set(writes.map((w) => w.by))];
  return {
    agentVersion: e.createdVersion == null ? bound : String(e.createdVersion),
    currentVersion: current,
    editedBy,
    writes,
    checkedAt: typeof e.checkedAt === "string" ? e.checkedAt : null,
  };
}
