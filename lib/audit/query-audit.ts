import type { Database } from "../db/client";
import { archivedHistory, type AuditArchived } from "./archived-history";
import { describeOutcome, outcomeBadgeWords, outcomesOfTask, utcFormat, type OutcomeKind } from "../outcomes";

/** What support staff search by: a person (task owner), a conversation, a task, a tool, a time window. */
export interface AuditFilter {
  ownerId?: string;
  /** A person as support staff know them: an account e-mail (any case) or user id; or any other owner id. */
  user?: string;
  conversationId?: string;
  taskId?: string;
  tool?: string;
  from?: string;
  to?: string;
}

export interface AuditDecision {
  reviewItemId: string;
  kind: string;
  event: string;
  actor: string;
  at: string;
  reason: string | null;
}

export interface AuditEffect {
  sideEffectId: string;
  taskId: string;
  taskTitle: string;
  ownerId: string;
  /** The owner's account e-mail when the owner is a person; null for tasks owned by an API token's agent. */
  ownerEmail: string | null;
  conversationId: string | null;
  workItemId: string;
  toolName: string;
  operationId: string;
  providerRef: string | null;
  externalRecordId: string | null;
  externalVersion: string | null;
  reversible: boolean;
  description: string | null;
  outcome: string;
  recordedAt: string;
  updatedAt: string;
  /** Who requested, approved, rejected or resolved what about this effect, and when (review_item.* events). */
  decisions: AuditDecision[];
}

export interface AuditCompensation {
  sideEffectId: string;
  taskId: string;
  reviewItemId: string;
  externalRecordId: string | null;
  boundToVersion: string | null;
  status: string;
  approvedBy: string | null;
  decidedAt: string | null;
  resolution: string | null;
}

export interface AuditUncertain {
  taskId: string;
  kind: "work_item" | "side_effect" | "review_item";
  id: string;
  toolName: string | null;
  detail: string;
  since: string;
}

/** What became of one step of a task, in the one vocabulary (lib/outcomes); times in UTC. */
export interface AuditOutcome {
  workItemId: string;
  toolCallId: string;
  toolName: string;
  kind: OutcomeKind;
  short: string;
  label: string;
}

export interface AuditTask {
  id: string;
  title: string;
  ownerId: string;
  ownerEmail: string | null;
  conversationId: string | null;
  stage: string;
  riskLevel: string;
  createdAt: string;
  cancelRequestedAt: string | null;
  /** Who pressed Stop (an actor such as `user:ada@example.com`) and the reason they gave. */
  cancelRequestedBy: string | null;
  cancelReason: string | null;
  /** When the engine's pass after the Stop was done; when the agent completed or failed the task. */
  settledAt: string | null;
  endedAt: string | null;
  /** Why the agent failed the task (a refused message: lib/outcomes refusalOf). */
  endReason: string | null;
  /** Each step's outcome. */
  outcomes: AuditOutcome[];
}

export interface AuditReport {
  filter: AuditFilter;
  generatedAt: string;
  tasks: AuditTask[];
  effects: AuditEffect[];
  compensations: AuditCompensation[];
  uncertain: AuditUncertain[];
  /**
   * History that left the hot tables under the retention policy (lib/retention) and matches the search: one entry per
   * archive file, with the sentence support reads (`archivedHistoryLine`). Empty when nothing matching was archived.
   */
  archived: AuditArchived[];
}

const MAX_TASKS = 500;
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * "What the agent actually changed": for the tasks matching the filter, every external effect with its
 * evidence (operation id, external record and version, who approved what and when), every compensation
 * and every item still uncertain. Read-only; facts come from the ledger tables only.
 */
export async function queryAudit(database: Database, filter: AuditFilter): Promise<AuditReport> {
  const prisma = database.prisma;
  const owners = filter.user ? await ownerIdsOf(database, filter.user) : undefined;
  // A person as support staff know them may also be a customer the agent wrote to or about (an e-mail in a step's
  // input, or in the description of an effect): those tasks match too (issue 20, item 7).
  const written = filter.user ? await tasksNaming(database, filter.user) : [];
  const createdAt =
    filter.from || filter.to ? { ...(filter.from ? { gte: new Date(filter.from) } : {}), ...(filter.to ? { lte: new Date(filter.to) } : {}) } : undefined;
  const tasks = await prisma.task.findMany({
    where: {
      ...(filter.ownerId || owners
        ? {
            AND: [
              ...(filter.ownerId ? [{ ownerId: filter.ownerId }] : []),
              ...(owners ? [{ OR: [{ ownerId: { in: owners } }, ...(written.length ? [{ id: { in: written } }] : [])] }] : []),
            ],
          }
        : {}),
      ...(filter.conversationId ? { conversationId: filter.conversationId } : {}),
      ...(filter.taskId ? { id: filter.taskId } : {}),
      ...(createdAt ? { createdAt } : {}),
      ...(filter.tool ? { workItems: { some: { toolName: filter.tool } } } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: MAX_TASKS,
  });
  const archived = await archivedHistory(database, { ...filter, ownerIds: owners });
  return { ...(await auditOfTasks(database, filter, tasks)), archived };
}

type TaskRow = Awaited<ReturnType<Database["prisma"]["task"]["findMany"]>>[number];

/**
 * The audit of the given task rows (what queryAudit shows for them): their steps' outcomes, effects with the decisions
 * about them, compensations and what is still uncertain. The retention pass writes it into each archived task's line of
 * the archive file (lib/retention), so the export says what support saw.
 */
export async function auditOfTasks(database: Database, filter: AuditFilter, tasks: TaskRow[]): Promise<Omit<AuditReport, "archived">> {
  const prisma = database.prisma;
  const taskIds = tasks.map((t) => t.id);
  const byTask = new Map(tasks.map((t) => [t.id, t]));
  const toolFilter = filter.tool ? { toolName: filter.tool } : {};
  const [workItems, sideEffects, reviewItems, events, resources] = await Promise.all([
    prisma.workItem.findMany({ where: { taskId: { in: taskIds }, ...toolFilter }, orderBy: { createdAt: "asc" } }),
    prisma.sideEffect.findMany({ where: { taskId: { in: taskIds } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.reviewItem.findMany({ where: { taskId: { in: taskIds } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    prisma.ledgerEvent.findMany({ where: { taskId: { in: taskIds }, type: { startsWith: "review_item." } }, orderBy: { seq: "asc" } }),
    prisma.resource.findMany({ where: { taskId: { in: taskIds } }, select: { taskId: true, workItemId: true, state: true } }),
  ]);
  const items = new Map(workItems.map((w) => [w.id, w]));
  const emails = await emailsOf(database, [...new Set(tasks.map((t) => t.ownerId))]);
  const now = Date.now();
  const outcomesOf = (task: (typeof tasks)[number]): AuditOutcome[] => {
    const own = workItems.filter((w) => w.taskId === task.id);
    const outcomes = outcomesOfTask(
      {
        ...task,
        workItems: own,
        sideEffects: sideEffects.filter((s) => s.taskId === task.id),
        reviewItems: reviewItems.filter((r) => r.taskId === task.id),
        resources: resources.filter((r) => r.taskId === task.id),
      },
      now,
    );
    return own.map((w) => {
      const o = outcomes.get(w.id)!;
      return {
        workItemId: w.id,
        toolCallId: w.correlationId,
        toolName: w.toolName,
        kind: o.kind,
        short: outcomeBadgeWords(o).short,
        tone: outcomeBadgeWords(o).tone,
        label: describeOutcome(o, utcFormat),
      };
    });
  };

  const decisionsByReview = new Map<string, AuditDecision[]>();
  for (const e of events) {
    const list = decisionsByReview.get(e.entityId) ?? [];
    list.push({ reviewItemId: e.entityId, kind: "", event: e.type, actor: e.actor, at: e.createdAt.toISOString(), reason: e.reason });
    decisionsByReview.set(e.entityId, list);
  }

  const effects: AuditEffect[] = [];
  const compensations: AuditCompensation[] = [];
  for (const s of sideEffects) {
    const item = items.get(s.workItemId);
    if (!item) continue; // filtered out by tool
    const task = byTask.get(s.taskId)!;
    const reviews = reviewItems.filter((r) => r.sideEffectId === s.id);
    const decisions = reviews.flatMap((r) => (decisionsByReview.get(r.id) ?? []).map((d) => ({ ...d, kind: r.kind })));
    effects.push({
      sideEffectId: s.id,
      taskId: s.taskId,
      taskTitle: task.title,
      ownerId: task.ownerId,
      ownerEmail: emails.get(task.ownerId) ?? null,
      conversationId: task.conversationId,
      workItemId: s.workItemId,
      toolName: item.toolName,
      operationId: s.operationId,
      providerRef: s.providerRef,
      externalRecordId: s.externalRecordId,
      externalVersion: s.externalVersion,
      reversible: s.reversible,
      description: s.description,
      outcome: s.outcome,
      recordedAt: s.createdAt.toISOString(),
      updatedAt: s.updatedAt.toISOString(),
      decisions,
    });
    for (const r of reviews.filter((r) => r.kind === "approve_compensation")) {
      const proposal = (r.proposal ?? {}) as { target?: string; expectedVersion?: string };
      const status = s.outcome === "compensated" ? "compensated" : r.status === "rejected" ? "rejected" : r.status === "open" ? "awaiting decision" : r.status;
      compensations.push({
        sideEffectId: s.id,
        taskId: s.taskId,
        reviewItemId: r.id,
        externalRecordId: proposal.target ?? s.externalRecordId,
        boundToVersion: proposal.expectedVersion ?? null,
        status,
        approvedBy: r.decidedBy,
        decidedAt: iso(r.decidedAt),
        resolution: r.resolution,
      });
    }
  }

  const uncertain: AuditUncertain[] = [];
  for (const w of workItems) {
    if (w.status === "uncertain")
      uncertain.push({
        taskId: w.taskId,
        kind: "work_item",
        id: w.id,
        toolName: w.toolName,
        detail: w.error ?? "outcome not known yet",
        since: w.updatedAt.toISOString(),
      });
  }
  for (const s of sideEffects) {
    const item = items.get(s.workItemId);
    if (item && s.outcome === "unknown")
      uncertain.push({
        taskId: s.taskId,
        kind: "side_effect",
        id: s.id,
        toolName: item.toolName,
        detail: `operation ${s.operationId}: outcome unknown`,
        since: s.updatedAt.toISOString(),
      });
  }
  for (const r of reviewItems) {
    if (r.status !== "open" && r.status !== "escalated") continue;
    const item = r.workItemId ? items.get(r.workItemId) : undefined;
    if (filter.tool && !item) continue;
    uncertain.push({
      taskId: r.taskId,
      kind: "review_item",
      id: r.id,
      toolName: item?.toolName ?? null,
      detail: `${r.kind.replaceAll("_", " ")}: ${r.subject}`,
      since: r.createdAt.toISOString(),
    });
  }

  return {
    filter,
    generatedAt: new Date().toISOString(),
    tasks: tasks.map((t) => ({
      id: t.id,
      title: t.title,
      ownerId: t.ownerId,
      ownerEmail: emails.get(t.ownerId) ?? null,
      conversationId: t.conversationId,
      stage: t.stage,
      riskLevel: t.riskLevel,
      createdAt: t.createdAt.toISOString(),
      cancelRequestedAt: iso(t.cancelRequestedAt),
      cancelRequestedBy: t.cancelRequestedBy,
      cancelReason: t.cancelReason,
      settledAt: iso(t.settledAt),
      endedAt: iso(t.endedAt),
      endReason: t.endReason,
      outcomes: outcomesOf(t),
    })),
    effects,
    compensations,
    uncertain,
  };
}

/**
 * The owner ids a `user` search stands for: the value itself (an owner id as stored on tasks — a person's
 * user id, or an agent's own owner id) and, when it names an account by e-mail (any case) or id, that
 * account's user id. An unknown e-mail matches no task.
 */
async function ownerIdsOf(database: Database, user: string): Promise<string[]> {
  const value = user.trim();
  const account = await database.prisma.user.findFirst({
    where: { OR: [{ id: value }, { email: value }, { email: value.toLowerCase() }] },
    select: { id: true },
  });
  return [...new Set([value, ...(account ? [account.id] : [])])];
}

/**
 * The tasks whose steps carry `value` in what the agent wrote (a step's input — the e-mail a CRM record or an email
 * was written for) or in an effect's description. Only values that look like an e-mail address (at least 5
 * characters with an @): an id or a name is matched as an owner above. Case-insensitive.
 */
async function tasksNaming(database: Database, user: string): Promise<string[]> {
  const value = user.trim().toLowerCase();
  if (value.length < 5 || !value.includes("@")) return [];
  const like = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows =
    database.provider === "postgres"
      ? await database.prisma.$queryRawUnsafe<{ taskId: string }[]>(
          `SELECT DISTINCT w."taskId" FROM "WorkItem" w WHERE lower(w."input"::text) LIKE $1 ESCAPE '\\' UNION SELECT DISTINCT s."taskId" FROM "SideEffect" s WHERE lower(s."description") LIKE $1 ESCAPE '\\' LIMIT 500`,
          like,
        )
      : await database.prisma.$queryRawUnsafe<{ taskId: string }[]>(
          `SELECT DISTINCT taskId FROM WorkItem WHERE lower(CAST(input AS TEXT)) LIKE ? ESCAPE '\\' UNION SELECT DISTINCT taskId FROM SideEffect WHERE lower(description) LIKE ? ESCAPE '\\' LIMIT 500`,
          like,
          like,
        );
  return rows.map((r) => r.taskId);
}

/** Account e-mails of the task owners that are people (a token's agent owns tasks under a name, not an account). */
async function emailsOf(database: Database, ownerIds: string[]): Promise<Map<string, string>> {
  if (!ownerIds.length) return new Map();
  const users = await database.prisma.user.findMany({ where: { id: { in: ownerIds } }, select: { id: true, email: true } });
  return new Map(users.map((u) => [u.id, u.email]));
}
