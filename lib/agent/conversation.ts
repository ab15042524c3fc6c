import { z } from "zod";
import type { Database } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { randomUUID } from "node:crypto";
import { createTurnTask } from "../ledger/create-task";
import { scheduleWorkItem } from "../ledger/schedule-work-item";
import { ACTIVE_ITEM_STATUSES, TaskStage } from "../ledger/states";
import { finishTask, TaskEnding } from "../ledger/finish-task";
import { refusedEndReason } from "../outcomes/task-standing";
import { writeLedger } from "../ledger/write";
import { understand, type Intent } from "./understand";
import { LedgerEvent } from "../ledger/events";
import { loadTranscript } from "../transcript/load-transcript";
import { toModelMessages } from "../transcript/transcript";
import { answerFromHistory } from "./answer-from-history";

/**
 * The demo agent: turns a chat message into a task whose children are scheduled on the demo tools. It
 * prepares before it commits: a purchase (or a record + email) becomes a PROPOSAL that a person must
 * confirm; only then are the commitments scheduled, each bound to the confirmed proposal version, so a
 * confirmation for two chairs is not permission to buy three after an edit (the checkpoint refuses it).
 */

export const ProposalSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("order"),
    items: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(1), unitCents: z.number().int() })).min(1),
    amountCents: z.number().int(),
  }),
  z.object({ type: z.literal("record_and_email"), name: z.string(), email: z.string(), subject: z.string(), body: z.string() }),
]);
export type Proposal = z.infer<typeof ProposalSchema>;

export interface AgentOptions {
  /** Prices for a proposal, from the shop (the agent's read). */
  prices: (skus: string[]) => Promise<Record<string, number>>;
  /** The tool that writes the reply (a cancellable model_request): the demo inference service by default. */
  replyTool?: string;
}

export interface TurnResult {
  taskId: string;
  intent: Intent["type"];
  reply: string;
  proposal: (Proposal & { version: number }) | null;
}

/** The reply to a turn whose Stop arrived before (or while) the agent took it up. */
export const STOPPED_BEFORE_START = "You pressed Stop before I started, so I did nothing.";

/**
 * One turn of the conversation: a task (named by the turn id the client chose — the message's idempotency
 * key), its preparation, and the reply. If the person pressed Stop before the message arrived, the turn's task
 * already exists with its boundary (lib/agent/stop-turn.ts): nothing is scheduled and the reply says so. A
 * repeat of the same turn answers the first one.
 */
export async function startTurn(
  database: Database,
  options: AgentOptions,
  input: { ownerId: string; conversationId: string; text: string; actor: string; turnId?: string; createdById?: string | null },
): Promise<TurnResult> {
  const intent = understand(input.text);
  const { task, created } = await createTurnTask(
    database,
    {
      title: input.text.slice(0, 200),
      ownerId: input.ownerId,
      conversationId: input.conversationId,
      turnId: input.turnId ?? randomUUID(),
      riskLevel: intent.type === "order" || intent.type === "record_and_email" ? "high" : "low",
      createdById: input.createdById ?? null,
    },
    input.actor,
  );
  if (task.ownerId !== input.ownerId)
    throw new AppError(ErrorCode.notFound, `conversation ${input.conversationId} not found`, { conversationId: input.conversationId });
  if (!created) return answerOf(database, task.id, intent);
  try {
    return await prepare(database, options, {
      taskId: task.id,
      intent,
      actor: input.actor,
      conversationId: input.conversationId,
      ownerId: input.ownerId,
      text: input.text,
    });
  } catch (error) {
    // Stop landed while the agent was preparing: what was scheduled is removed from dispatch by the engine.
    if (error instanceof AppError && error.code === ErrorCode.cancelRequested) return answerOf(database, task.id, intent);
    // Refused before anything started (a tool it needs is quarantined by an incident): the message's task ends at
    // once, as a refusal — no task is left "running · no steps" with a Stop button and nothing to stop.
    if (error instanceof AppError && error.code === ErrorCode.quarantined) await endRefused(database, task.id, error, input.actor);
    throw error;
  }
}

/**
 * Ends a turn whose message was refused. Only when nothing of it is alive: a child scheduled before the refusal
 * (none today: the export is the first thing an export schedules) keeps the turn open for the settler. Another
 * ending that got there first (a Stop) stands.
 */
async function endRefused(database: Database, taskId: string, error: AppError, actor: string): Promise<void> {
  const alive = await database.prisma.workItem.count({ where: { taskId, status: { in: ACTIVE_ITEM_STATUSES } } });
  if (alive > 0) return;
  await finishTask(database, { taskId, ending: TaskEnding.failed, reason: refusedEndReason(error.message), actor }).catch((e) => {
    if (!(e instanceof AppError)) throw e;
  });
}

async function prepare(
  database: Database,
  options: AgentOptions,
  input: { taskId: string; intent: Intent; actor: string; conversationId: string; ownerId: string; text: string },
): Promise<TurnResult> {
  const { taskId, intent } = input;
  const child = (
    toolName: string,
    kind: "model_request" | "remote_tool" | "external_action",
    mechanism: string,
    data: unknown,
    extra: { commitsEffect?: boolean; proposalVersion?: number } = {},
  ) => scheduleWorkItem(database, { taskId, kind, toolName, mechanism: mechanism as never, intentVersion: 1, input: data, ...extra }, input.actor);

  let text: string;
  let proposal: TurnResult["proposal"] = null;
  let history: Awaited<ReturnType<typeof loadTranscript>> | null = null;
  switch (intent.type) {
    case "order": {
      await child("shop.check_stock", "remote_tool", "abort_signal", {});
      const prices = await options.prices(intent.items.map((i) => i.sku));
      const items = intent.items.map((i) => ({ ...i, unitCents: prices[i.sku] ?? 0 }));
      const draft: Proposal = { type: "order", items, amountCents: items.reduce((sum, i) => sum + i.unitCents * i.quantity, 0) };
      proposal = await setProposal(database, taskId, draft, input.actor, 0);
      text = `I can order ${items.map((i) => `${i.quantity} × ${i.sku}`).join(", ")} for €${(draft.amountCents / 100).toFixed(2)}. Please confirm.`;
      break;
    }
    case "record_and_email": {
      const draft: Proposal = {
        type: "record_and_email",
        name: intent.name,
        email: intent.email,
        subject: "Welcome",
        body: `Hello ${intent.name}, thank you for getting in touch.`,
      };
      proposal = await setProposal(database, taskId, draft, input.actor, 0);
      text = `I can add ${intent.name} <${intent.email}> to the CRM and email them a welcome. Please confirm.`;
      break;
    }
    case "export":
      await child("reports.export_report", "remote_tool", "provider_cancel", { rows: intent.rows, rowMs: 20 });
      text = `Exporting a report of ${intent.rows} rows.`;
      break;
    case "question":
      // answered from the history, as the ledger records it now (lib/transcript): never a guess about a Stop
      history = await loadTranscript(database, { conversationId: input.conversationId, ownerId: input.ownerId, before: taskId });
      text = answerFromHistory(history, intent.about);
      break;
    default:
      text =
        'I can order items ("order two chairs"), export a report ("export a report of 500 rows"), or record a customer and email them ("record customer Ada ada@example.com").';
  }
  // The rest of the reply says what will actually happen next; it streams as a cancellable model request.
  // (`reply` keeps the headline with it, for a page that reopens the conversation.)
  // A model writing it reads the conversation so far with every stopped call's result as the ledger records it
  // (lib/transcript): the same words the person is shown, so it does not order again what was already ordered.
  history ??= await loadTranscript(database, { conversationId: input.conversationId, ownerId: input.ownerId, before: taskId });
  const messages = [...toModelMessages(history), { role: "user" as const, content: input.text }];
  await child(options.replyTool ?? "inference.generate", "model_request", "abort_signal", {
    prompt: whatHappensNext(intent),
    reply: text,
    wordMs: 40,
    messages,
  });
  return { taskId, intent: intent.type, reply: text, proposal };
}

/**
 * What will actually happen after this reply, in the agent's words — never more than the application will do
 * (an export promises no proposal; an order promises nothing before the person confirms).
 */
export function whatHappensNext(intent: Intent): string {
  switch (intent.type) {
    case "order":
      return "Nothing is ordered until you confirm. Once you confirm, I place exactly this order with the shop; if you press Stop before it is placed, no order is made.";
    case "record_and_email":
      return "Nothing is created or sent until you confirm. Once you confirm, I create the CRM record, then send the email — a sent email cannot be taken back.";
    case "export":
      return "The report is written row by row. If you press Stop, the rows already written are kept as a partial report and the rest is not exported.";
    case "question":
      return "I have not started anything for this question: the answer is what Stopline's ledger records about the earlier request.";
    case "unknown":
      return "I have not started anything for this message.";
  }
}

/** The answer to a turn that was already taken up (a repeat), or stopped before the agent prepared anything. */
async function answerOf(database: Database, taskId: string, intent: Intent): Promise<TurnResult> {
  const task = await database.prisma.task.findUniqueOrThrow({
    where: { id: taskId },
    include: { workItems: { select: { kind: true, input: true }, orderBy: { createdAt: "asc" } } },
  });
  const proposal = task.proposal ? { ...ProposalSchema.parse(task.proposal), version: task.proposalVersion } : null;
  if (task.cancelRequestedAt && task.workItems.length === 0) return { taskId, intent: intent.type, reply: STOPPED_BEFORE_START, proposal };
  const said = task.workItems.find((i) => i.kind === "model_request")?.input as { reply?: string } | undefined;
  return {
    taskId,
    intent: intent.type,
    reply: task.cancelRequestedAt ? "You pressed Stop while I was preparing this request." : (said?.reply ?? ""),
    proposal,
  };
}

async function setProposal(database: Database, taskId: string, proposal: Proposal, actor: string, expectedVersion: number) {
  return writeLedger(database, async (w) => {
    const { count } = await w.tx.task.updateMany({
      where: { id: taskId, proposalVersion: expectedVersion, stage: TaskStage.active, cancelRequestedAt: null },
      data: { proposal: proposal as never, proposalVersion: expectedVersion + 1, rowVersion: { increment: 1 } },
    });
    if (count !== 1) {
      const task = await w.tx.task.findUnique({ where: { id: taskId } });
      if (!task) throw new AppError(ErrorCode.notFound, `task ${taskId} not found`, { taskId });
      if (task.cancelRequestedAt) throw new AppError(ErrorCode.cancelRequested, "the task was stopped; its proposal cannot change", { taskId });
      if (task.stage !== TaskStage.active)
        throw new AppError(ErrorCode.conflict, `task ${taskId} already ended: it is "${task.stage}"; its proposal cannot change`, {
          taskId,
          currentState: task.stage,
        });
      throw new AppError(ErrorCode.staleIntent, `the proposal is at version ${task.proposalVersion}, not ${expectedVersion}`, {
        currentProposalVersion: task.proposalVersion,
      });
    }
    await w.event({ taskId, entityType: "task", entityId: taskId, actor, type: LedgerEvent.agentProposal, data: { version: expectedVersion + 1, proposal } });
    return { ...proposal, version: expectedVersion + 1 };
  });
}

/** A person edits the proposal (e.g. three chairs instead of two): a new version that needs its own confirmation. */
export async function editProposal(
  database: Database,
  options: AgentOptions,
  input: { taskId: string; items: { sku: string; quantity: number }[]; expectedVersion: number; actor: string },
) {
  const task = await database.prisma.task.findUnique({ where: { id: input.taskId } });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  const prices = await options.prices(input.items.map((i) => i.sku));
  const items = input.items.map((i) => ({ ...i, unitCents: prices[i.sku] ?? 0 }));
  return setProposal(
    database,
    task.id,
    { type: "order", items, amountCents: items.reduce((s, i) => s + i.unitCents * i.quantity, 0) },
    input.actor,
    input.expectedVersion,
  );
}

/**
 * A person confirms the proposal they saw (its version). The commitments are scheduled bound to that
 * version: if the proposal changes before they commit, their checkpoint refuses them.
 */
export async function confirmProposal(database: Database, input: { taskId: string; proposalVersion: number; actor: string }) {
  const task = await database.prisma.task.findUnique({ where: { id: input.taskId } });
  if (!task) throw new AppError(ErrorCode.notFound, `task ${input.taskId} not found`, { taskId: input.taskId });
  if (!task.proposal) throw new AppError(ErrorCode.badRequest, "this task has no proposal to confirm", { field: "proposalVersion" });
  if (task.proposalVersion !== input.proposalVersion) {
    throw new AppError(
      ErrorCode.staleIntent,
      `you confirmed proposal version ${input.proposalVersion}, but it is now version ${task.proposalVersion}; confirm the current one`,
      {
        confirmedProposalVersion: input.proposalVersion,
        currentProposalVersion: task.proposalVersion,
        proposal: task.proposal,
      },
    );
  }
  const proposal = ProposalSchema.parse(task.proposal);
  const bound = { intentVersion: task.intentVersion, proposalVersion: input.proposalVersion, commitsEffect: true };
  // Each commitment's correlation id names the proposal version it carries out, and the ledger keeps
  // correlation ids unique per task: a repeated confirmation (a retried request, a second tab) finds the
  // first one's work items instead of ordering twice.
  const commitments: { correlationId: string; toolName: string; mechanism: "provider_cancel"; input: unknown }[] =
    proposal.type === "order"
      ? [
          {
            correlationId: `proposal-v${input.proposalVersion}-order`,
            toolName: "shop.create_order",
            mechanism: "provider_cancel",
            input: { items: proposal.items.map(({ sku, quantity }) => ({ sku, quantity })) },
          },
        ]
      : [
          {
            correlationId: `proposal-v${input.proposalVersion}-record`,
            toolName: "crm.create_record",
            mechanism: "provider_cancel",
            input: { name: proposal.name, email: proposal.email },
          },
          {
            correlationId: `proposal-v${input.proposalVersion}-email`,
            toolName: "mailer.send_email",
            mechanism: "provider_cancel",
            input: { to: proposal.email, subject: proposal.subject, body: proposal.body },
          },
        ];
  const existing = await database.prisma.workItem.findMany({
    where: { taskId: task.id, correlationId: { in: commitments.map((c) => c.correlationId) } },
    select: { id: true },
  });
  if (existing.length) return { taskId: task.id, proposalVersion: input.proposalVersion, workItems: existing.map((e) => e.id), alreadyConfirmed: true };
  const scheduled: string[] = [];
  for (const c of commitments) {
    try {
      scheduled.push((await scheduleWorkItem(database, { taskId: task.id, kind: "external_action", ...c, ...bound }, input.actor)).id);
    } catch (error) {
      // A concurrent confirmation won the race for this correlation id: answer with its work items.
      if (error instanceof AppError && error.code === ErrorCode.conflict && scheduled.length === 0) {
        const winner = await database.prisma.workItem.findMany({
          where: { taskId: task.id, correlationId: { in: commitments.map((x) => x.correlationId) } },
          select: { id: true },
        });
        return { taskId: task.id, proposalVersion: input.proposalVersion, workItems: winner.map((w) => w.id), alreadyConfirmed: true };
      }
      throw error;
    }
  }
  // Recorded after scheduling: a confirmation refused by a Stop leaves no "confirmed" in the ledger.
  await writeLedger(database, (w) =>
    w.event({
      taskId: task.id,
      entityType: "task",
      entityId: task.id,
      actor: input.actor,
      type: LedgerEvent.agentProposalConfirmed,
      data: { version: input.proposalVersion, proposal },
    }),
  );
  return { taskId: task.id, proposalVersion: input.proposalVersion, workItems: scheduled, alreadyConfirmed: false };
}

/** Prices from the demo shop over HTTP (the agent's read). */
export function shopPrices(baseUrl: string): AgentOptions["prices"] {
  return async (skus) => {
    const res = await fetch(`${baseUrl.replace(/\/$/, "")}/shop/stock`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) throw new AppError(ErrorCode.unavailable, `the shop did not answer (${res.status})`);
    const { stock } = (await res.json()) as { stock: { sku: string; price_cents: number }[] };
    const unknown = skus.filter((s) => !stock.some((x) => x.sku === s));
    if (unknown.length) throw new AppError(ErrorCode.badRequest, `the shop has no ${unknown.join(", ")}`, { field: "items" });
    return Object.fromEntries(stock.map((s) => [s.sku, s.price_cents]));
  };
}
