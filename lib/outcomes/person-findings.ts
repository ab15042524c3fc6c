/**
 * What did a person establish about an outcome nobody else could? A resolved "uncertain outcome" review item,
 * decided by a person (not by Stopline when the service answered meanwhile), read with the facts it changed: the
 * child's effect (committed → it took effect; not committed → it did not; still unknown → they could not tell),
 * else the child's own status. Pure. The person who pressed Stop is told each one (userMessage).
 */
export const PersonFinding = { tookEffect: "took_effect", didNotTakeEffect: "did_not_take_effect", cannotTell: "cannot_tell" } as const;
export type PersonFinding = (typeof PersonFinding)[keyof typeof PersonFinding];

export interface FindingFacts {
  reviewItems: { kind: string; status: string; workItemId: string | null; decidedBy?: string | null }[];
  sideEffects: { workItemId: string; outcome: string; description: string | null }[];
  workItems: { id: string; status: string; toolName: string }[];
}

export function personFindings(facts: FindingFacts): { finding: PersonFinding; what: string }[] {
  const found: { finding: PersonFinding; what: string }[] = [];
  for (const r of facts.reviewItems) {
    if (r.kind !== "resolve_uncertain" || r.status !== "resolved" || !r.workItemId) continue;
    if (!r.decidedBy || r.decidedBy.startsWith("system:")) continue;
    const item = facts.workItems.find((i) => i.id === r.workItemId);
    if (!item) continue;
    const effects = facts.sideEffects.filter((e) => e.workItemId === item.id);
    const what = effects.find((e) => e.description)?.description ?? `the ${item.toolName} action`;
    let finding: PersonFinding | null = null;
    if (effects.some((e) => e.outcome === "committed" || e.outcome === "compensated")) finding = PersonFinding.tookEffect;
    else if (effects.length && effects.every((e) => e.outcome === "not_committed")) finding = PersonFinding.didNotTakeEffect;
    else if (effects.some((e) => e.outcome === "unknown")) finding = PersonFinding.cannotTell;
    else if (item.status === "completed") finding = PersonFinding.tookEffect;
    else if (item.status === "cancelled" || item.status === "failed") finding = PersonFinding.didNotTakeEffect;
    else if (item.status === "uncertain") finding = PersonFinding.cannotTell;
    if (finding) found.push({ finding, what });
  }
  return found;
}

/** The sentence for one finding, as the person who pressed Stop reads it. */
export function findingSentence(f: { finding: PersonFinding; what: string }): string {
  switch (f.finding) {
    case PersonFinding.tookEffect:
      return `An operator confirmed that ${f.what} took effect.`;
    case PersonFinding.didNotTakeEffect:
      return `An operator confirmed that ${f.what} did not take effect.`;
    case PersonFinding.cannotTell:
      return `An operator could not establish whether ${f.what} took effect.`;
  }
}
