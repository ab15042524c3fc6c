import path from "node:path";
import { z } from "zod";
import { PROJECT_ROOT } from "../db/config";

/**
 * The retention policy an operator sets (README "Operations → Retention"). Unset STOPLINE_RETENTION_DAYS keeps every
 * task forever — nothing is archived and nothing is deleted. A value that is not a positive number of days is a
 * start-up error (scripts/start.ts, scripts/worker.ts, the background runtime), never silently "forever".
 */
export interface RetentionPolicy {
  /** Settled tasks whose settlement is older than this many days leave the hot tables; null: keep forever. */
  days: number | null;
  /** Where the gzip JSONL audit exports are written (absolute). */
  archiveDir: string;
  /** How often the background pass runs (it also runs once shortly after start). */
  intervalMs: number;
  /** Tasks per archive file (and per deleting transaction). */
  batchSize: number;
  /** Files per pass at most: a pass with a large backlog stops and the next one goes on. */
  maxBatchesPerPass: number;
}

export const DEFAULT_ARCHIVE_DIR = path.join("data", "archive");

const number = (name: string, check: z.ZodNumber) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return undefined;
      const n = Number(raw);
      const parsed = check.safeParse(n);
      if (!parsed.success || !Number.isFinite(n)) {
        ctx.addIssue({ code: "custom", message: `${name} must be ${check.description}; got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

const Env = z.object({
  STOPLINE_RETENTION_DAYS: number(
    "STOPLINE_RETENTION_DAYS",
    z.number().positive().max(36_500).describe("a positive number of days (e.g. 90; unset keeps every task forever)"),
  ),
  STOPLINE_ARCHIVE_DIR: z.string().trim().optional(),
  STOPLINE_RETENTION_INTERVAL_MS: number(
    "STOPLINE_RETENTION_INTERVAL_MS",
    z.number().int().min(1_000).describe("a whole number of milliseconds, at least 1000"),
  ),
  STOPLINE_RETENTION_BATCH: number("STOPLINE_RETENTION_BATCH", z.number().int().min(1).max(10_000).describe("a whole number of tasks between 1 and 10000")),
});

export class RetentionConfigError extends Error {
  override readonly name = "RetentionConfigError";
}

/** Reads and validates the policy from the environment; throws a RetentionConfigError that names the bad setting. */
export function retentionPolicy(env: Record<string, string | undefined> = process.env): RetentionPolicy {
  const parsed = Env.safeParse({
    STOPLINE_RETENTION_DAYS: env.STOPLINE_RETENTION_DAYS,
    STOPLINE_ARCHIVE_DIR: env.STOPLINE_ARCHIVE_DIR,
    STOPLINE_RETENTION_INTERVAL_MS: env.STOPLINE_RETENTION_INTERVAL_MS,
    STOPLINE_RETENTION_BATCH: env.STOPLINE_RETENTION_BATCH,
  });
  if (!parsed.success) throw new RetentionConfigError(`retention policy: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const e = parsed.data;
  return {
    days: e.STOPLINE_RETENTION_DAYS ?? null,
    archiveDir: path.resolve(PROJECT_ROOT, e.STOPLINE_ARCHIVE_DIR || DEFAULT_ARCHIVE_DIR),
    intervalMs: e.STOPLINE_RETENTION_INTERVAL_MS ?? 60 * 60_000,
    batchSize: e.STOPLINE_RETENTION_BATCH ?? 200,
    maxBatchesPerPass: 20,
  };
}

/** Settlements before this instant are old enough to leave the hot tables (null: the policy keeps everything). */
export function retentionCutoff(policy: Pick<RetentionPolicy, "days">, now: Date): Date | null {
  return policy.days === null ? null : new Date(now.getTime() - policy.days * 86_400_000);
}
