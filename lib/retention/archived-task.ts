import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { archivedTaskMessage } from "../audit/archived-words";

/**
 * When `taskId` left the hot tables under the retention policy: the 404 that says so — when it settled, when it was
 * archived and (for `withPath`: people who read the audit) the archive file — instead of a bare "not found". Null when
 * the task was never archived (or `ownerId` is given and is not its owner: an owner-scoped reader learns nothing of
 * other people's tasks).
 */
export async function archivedTaskError(database: Database, taskId: string, options: { withPath: boolean; ownerId?: string }): Promise<AppError | null> {
  const row = await database.prisma.archivedTask.findUnique({ where: { taskId } });
  if (!row || (options.ownerId !== undefined && row.ownerId !== options.ownerId)) return null;
  const archivePath = options.withPath ? row.archivePath : null;
  return new AppError(ErrorCode.notFound, archivedTaskMessage({ taskId, settledAt: row.settledAt, archivedAt: row.archivedAt, archivePath }), {
    taskId,
    archived: { archivedAt: row.archivedAt.toISOString(), settledAt: row.settledAt.toISOString(), ...(archivePath ? { archivePath } : {}) },
  });
}
