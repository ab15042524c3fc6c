import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { LedgerEvent } from "../ledger/events";
import { bindIntentIn, intentNotHeldIn, intentsAwaitingResolution, recordHeldIn } from "../ledger/resource-intents";
import { Mechanism, ResourceIntentState, ResourceState, ReviewItemKind } from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import type { HeldByService, ToolDefinition } from "../tools/contract";
import type { ToolRegistry } from "../tools/registry";
import { refFor } from "./call-ref";
import { claimDispatch, noteCancelInFlight, recordCancelAnswer, type CancelSettings } from "./dispatch-fence";
import { openReviewItemIn } from "./steps/7-review";
import { ENGINE_ACTOR, answerWithin, logStep, withRetries } from "./step-log";

type Answer = { holds: HeldByService[]; status?: string } | { unknown: string };

/**
 * The first step of the verification gate (issue 19, written ahead): every resource intent of a call that can no
 * longer name its resources itself — its child ended, or is uncertain with its worker gone — is settled by asking
 * the service what the call holds (`inspect().holds`), by its idempotency key / operation id:
 *  - held → recorded by its concrete handle and bound to the intent; the gate's cleanup then releases and verifies it;
 *  - nothing of that kind → `not_held` — but "not found" may mean "not yet": a provider-side call whose request was
 *    never withdrawn is withdrawn first (its tool's cancel, the same fence as reconciliation's), then asked again;
 *  - the service cannot say (no inspect, no `holds`, an error) → `unresolved`, with an ORPHANED resource named by the
 *    call's key and a review item for a person, in one transaction. The summary never reports that call's resources
 *    as nothing.
 * Safe to repeat: every write is a compare-and-set of the intent's state.
 */
export async function resolveIntents(database: Database, registry: ToolRegistry, scope: { taskId: string; workItemIds?: string[] }, o: CancelSettings = {}) {
  const open = await database.prisma.resourceIntent.findMany({
    where: intentsAwaitingResolution(scope),
    include: { workItem: true },
    orderBy: { createdAt: "asc" },
  });
  if (!open.length) return;
  const byItem = new Map<string, typeof open>();
  for (const intent of open) byItem.set(intent.workItemId, [...(byItem.get(intent.workItemId) ?? []), intent]);
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: scope.taskId }, select: { riskLevel: true } });

  for (const intents of byItem.values()) {
    const item = intents[0].workItem;
    const tool = registry.get(item.toolName);
    let answer = await ask(database, item, tool, o.cancelTimeoutMs);
    // "Nothing held" may mean "not yet" only while the service has no record of the call as started: a call it reports
    // running or committed has arrived, and what it names is all it holds (no withdrawal: its cancel could only fail
    // or stop the work — PostgreSQL seed 2027 #1: a refused cancel turned a released lock into "could not say").
    const missing = (a: Answer) =>
      "holds" in a && a.status !== "committed" && a.status !== "running" && intents.some((i) => !a.holds.some((h) => h.type === i.type));
    if (missing(answer) && tool?.cancel && tool.mechanism === Mechanism.providerCancel && !item.cancelWithdrawnAt) {
      // Nothing held so far may only mean "not yet" (the start request is still on its way): withdraw it, then ask again.
      if (!(await claimDispatch(database, item, "provider_cancel", o))) {
        await noteCancelInFlight(database, item, { action: "resolve_intents", then: "what the call holds is asked again later" }, o);
        continue;
      }
      const ref = await refFor(database, item);
      const withdrawn = await answerWithin(() => tool.cancel!(ref), o.cancelTimeoutMs ?? 5_000);
      await recordCancelAnswer(database, item, withdrawn.ok);
      answer = await ask(database, item, tool, o.cancelTimeoutMs);
      if (!withdrawn.ok && "holds" in answer) {
        // Not withdrawn (the service refused the cancel: random conformance, PostgreSQL seed 2027 #1, #158): what the
        // service names now is held — by its concrete handle; only what it still does not name may be "not yet".
        const named = answer.holds;
        const unnamed = intents.filter((i) => !named.some((h) => h.type === i.type));
        if (named.length) await bindHeld(database, item, named, []);
        for (const intent of unnamed)
          await recordUnresolved(
            database,
            intent,
            item,
            tool,
            task.riskLevel,
            `the request could not be withdrawn before concluding it holds no ${intent.type}: ${withdrawn.error.message}`,
          );
        await logStep(database, {
          taskId: item.taskId,
          workItemId: item.id,
          action: "resolve_intents",
          success: !unnamed.length,
          detail: `the cancel was refused; the service says the call holds ${named.length ? named.map((h) => `${h.type} ${h.handle}`).join(", ") : "nothing so far"}`,
        });
        continue;
      }
      if (!withdrawn.ok) answer = { unknown: `the request could not be withdrawn before concluding it holds nothing: ${withdrawn.error.message}` };
    }
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action: "resolve_intents",
      success: "holds" in answer,
      detail:
        "holds" in answer
          ? `the service says the call holds ${answer.holds.length ? answer.holds.map((h) => `${h.type} ${h.handle}`).join(", ") : "nothing"} (written ahead: ${intents.map((i) => i.type).join(", ")})`
          : `the service could not say what the call holds (${answer.unknown})`,
    });

    if ("holds" in answer) {
      await bindHeld(database, item, answer.holds, intents);
      continue;
    }
    for (const intent of intents) await recordUnresolved(database, intent, item, tool, task.riskLevel, answer.unknown);
  }
}

/** What the service says the call holds, recorded by its concrete handles and bound to the intents; `notHeld`: intents it names none of. */
async function bindHeld(
  database: Database,
  item: WorkItem,
  holds: HeldByService[],
  notHeld: { id: string; taskId: string; workItemId: string; type: string; key: string; state: string }[],
) {
  await writeLedger(database, async (w) => {
    for (const h of holds) {
      const resource = await recordHeldIn(w, {
        taskId: item.taskId,
        workItemId: item.id,
        type: h.type,
        handle: h.handle,
        actor: ENGINE_ACTOR,
        reason: "the service says the call holds it (its answer was lost)",
      });
      await bindIntentIn(w, {
        workItemId: item.id,
        taskId: item.taskId,
        type: h.type,
        handle: h.handle,
        resourceId: resource.id,
        actor: ENGINE_ACTOR,
        by: "inspect",
      });
    }
    for (const intent of notHeld) {
      if (holds.some((h) => h.type === intent.type)) continue;
      await intentNotHeldIn(w, intent, { actor: ENGINE_ACTOR, reason: "the service says the call holds none", by: "inspect" });
    }
  });
}

/** The service could not say: an orphaned resource named by the call's key stands for what it may hold; a person is asked. */
async function recordUnresolved(
  database: Database,
  intent: { id: string; taskId: string; workItemId: string; type: string; key: string; state: string },
  item: WorkItem,
  tool: ToolDefinition | undefined,
  risk: string,
  why: string,
) {
  await writeLedger(database, async (w) => {
    const current = await w.tx.resourceIntent.findUniqueOrThrow({ where: { id: intent.id } });
    if (current.state !== ResourceIntentState.open) return;
    const reason = `the call may hold a ${intent.type} at its service, which could not say (${why})`;
    const held = await recordHeldIn(w, {
      taskId: intent.taskId,
      workItemId: intent.workItemId,
      type: intent.type,
      handle: intent.key,
      actor: ENGINE_ACTOR,
      reason,
    });
    if (held.state === ResourceState.held) {
      await casUpdate(w, {
        entity: "resource",
        id: held.id,
        from: held.state,
        to: ResourceState.orphaned,
        data: { verifiedAt: await w.now() },
        event: { taskId: intent.taskId, workItemId: intent.workItemId, actor: ENGINE_ACTOR, type: LedgerEvent.resourceOrphaned, reason, data: { attempt: 0 } },
      });
    }
    await casUpdate(w, {
      entity: "resourceIntent",
      id: intent.id,
      from: current.state,
      to: ResourceIntentState.unresolved,
      data: { resourceId: held.id, reason },
      event: {
        taskId: intent.taskId,
        workItemId: intent.workItemId,
        actor: ENGINE_ACTOR,
        type: LedgerEvent.resourceIntentUnresolved,
        reason,
        data: { type: intent.type, resourceId: held.id },
      },
    });
    await openReviewItemIn(w, {
      taskId: intent.taskId,
      workItemId: intent.workItemId,
      resourceId: held.id,
      kind: ReviewItemKind.orphanedResource,
      risk: tool?.risk === "high" ? "high" : risk,
      subject: `${item.toolName} (${item.correlationId}) may still hold a ${intent.type} at its service: its answer never arrived and the service could not say (${why}). Look it up by the call's key ${intent.key}.`,
    });
  });
}

/** What the service says the call holds; `unknown` when it cannot say (no inspect, no `holds`, an error). */
async function ask(database: Database, item: WorkItem, tool: ToolDefinition | undefined, timeoutMs = 5_000): Promise<Answer> {
  if (!tool) return { unknown: `tool ${item.toolName} is not registered in this process, and no process that runs it answers` };
  if (!tool.inspect) return { unknown: `${item.toolName} has no inspect()` };
  const ref = await refFor(database, item);
  const asked = await withRetries(() => tool.inspect!(ref), 2, 100, timeoutMs);
  if (!asked.ok) return { unknown: `inspect failed: ${asked.error.message}` };
  if (asked.value.status === "unknown") return { unknown: asked.value.reason };
  if (!asked.value.holds) return { unknown: `${item.toolName}'s inspect() does not report what the call holds` };
  return { holds: asked.value.holds, status: asked.value.status };
}
