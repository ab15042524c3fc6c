import { describe, expect, it } from "vitest";
import { personFindings, type PersonFinding, type FindingFacts } from "../../../lib/outcomes/person-findings";

const item = (status: string) => ({ id: "w1", status, toolName: "shop.create_order" });
const review = (decidedBy: string | null, status = "resolved", kind = "resolve_uncertain") => ({ kind, status, workItemId: "w1", decidedBy });
const effect = (outcome: string) => ({ workItemId: "w1", outcome, description: "order o-1" });

describe("personFindings", () => {
  it.each<[string, FindingFacts, { finding: PersonFinding; what: string }[]]>([
    [
      "a person: took effect",
      { reviewItems: [review("operator:otto")], sideEffects: [effect("committed")], workItems: [item("completed")] },
      [{ finding: "took_effect", what: "order o-1" }],
    ],
    [
      "a person: did not",
      { reviewItems: [review("operator:otto")], sideEffects: [effect("not_committed")], workItems: [item("cancelled")] },
      [{ finding: "did_not_take_effect", what: "order o-1" }],
    ],
    [
      "a person: cannot tell",
      { reviewItems: [review("operator:otto")], sideEffects: [effect("unknown")], workItems: [item("uncertain")] },
      [{ finding: "cannot_tell", what: "order o-1" }],
    ],
    [
      "no effect recorded: the child's status, and the tool's name",
      { reviewItems: [review("admin:ops")], sideEffects: [], workItems: [item("completed")] },
      [{ finding: "took_effect", what: "the shop.create_order action" }],
    ],
    [
      "Stopline resolved it (the service answered): not a person's finding",
      { reviewItems: [review("system:cancellation-engine")], sideEffects: [effect("committed")], workItems: [item("completed")] },
      [],
    ],
    ["still open", { reviewItems: [review(null, "open")], sideEffects: [effect("unknown")], workItems: [item("uncertain")] }, []],
    ["another kind of item", { reviewItems: [review("operator:otto", "resolved", "orphaned_resource")], sideEffects: [], workItems: [item("completed")] }, []],
  ])("%s", (_, facts, expected) => {
    expect(personFindings(facts)).toEqual(expected);
  });
});
