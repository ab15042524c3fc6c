import { SideEffectOutcome } from "./states";
import { casUpdate, type Writer } from "./write";
import { LedgerEvent } from "./events";

/** What the service said a call did (its inspect), as the call's side effects record it. */
export interface EffectFacts {
  status: "committed" | "not_committed";
  externalRecordId?: string | null;
  externalVersion?: string | null;
  description?: string;
  evidence?: Record<string, unknown>;
}

/**
 * The call's side effects still `unknown` take the service's answer: committed (with the record it named — the version
 * the agent's own write produced, never the record's version now) or not committed. Each a compare-and-set from
 * unknown with its `side_effect.reconciled` event, in the caller's transaction. Returns the effects it settled.
 */
export async function reconcileSideEffects(
  w: Writer,
  item: { id: string; taskId: string },
  facts: EffectFacts,
  actor: string,
  options: { /** Only this effect of the call (a late report is asked about by itself). */ only?: string; reason?: string } = {},
) {
  const committed = facts.status === "committed";
  const effects = await w.tx.sideEffect.findMany({
    where: { workItemId: item.id, outcome: SideEffectOutcome.unknown, ...(options.only ? { id: options.only } : {}) },
  });
  for (const e of effects) {
    await casUpdate(w, {
      entity: "sideEffect",
      id: e.id,
      from: SideEffectOutcome.unknown,
      to: committed ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted,
      data: committed
        ? {
            externalRecordId: facts.externalRecordId ?? e.externalRecordId,
            externalVersion: facts.externalVersion ?? e.externalVersion,
            description: facts.description ?? e.description,
            ...(facts.evidence ? { evidence: facts.evidence as never } : {}),
          }
        : {},
      event: { taskId: item.taskId, workItemId: item.id, actor, type: LedgerEvent.sideEffectReconciled, reason: options.reason ?? `inspect: ${facts.status}` },
    });
  }
  return effects;
}
