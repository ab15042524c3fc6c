import { describe, expect, it } from "vitest";
import { deliveryLogEmptyKind, EMPTY_WORDS } from "../../../components/state-words";
import { noFaultsSentence } from "../../../components/console/demo/types";

/** Issue 20, item 7: the smaller wording faults, each seen on a page. */
describe("item 7 — words seen on the console", () => {
  it.each([
    ["reports", "No faults: the reports service behaves normally."],
    ["crm", "No faults: the CRM service behaves normally."],
    ["shop", "No faults: the shop service behaves normally."],
  ])("the %s demo service without faults, in a grammatical sentence", (service, words) => {
    expect(noFaultsSentence(service)).toBe(words);
  });

  it("the empty task list speaks to people, not about POST /api/tasks", () => {
    expect(`${EMPTY_WORDS.taskList.title} ${EMPTY_WORDS.taskList.body}`).not.toMatch(/POST|\/api\//);
  });

  it.each<[number, string]>([
    [0, "Nothing has been escalated."],
    [3, "No channel has received an escalation yet."],
  ])("the delivery log with %i escalated items nobody received never says nothing was escalated", (undelivered, title) => {
    expect(EMPTY_WORDS[deliveryLogEmptyKind(undelivered)].title).toBe(title);
  });
});
