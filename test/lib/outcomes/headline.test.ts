import { describe, expect, it } from "vitest";
import { OutcomeKind } from "../../../lib/outcomes/child-outcome";
import { partialStopHeadline } from "../../../lib/outcomes/headline";

describe("partialStopHeadline: why a Stop did not end cleanly (issue 20, item 7)", () => {
  it.each<[string, OutcomeKind[], number, string]>([
    ["only a lock was held and not released", [OutcomeKind.stopped], 1, "Stopped — but something it held could not be released"],
    ["an effect took place", [OutcomeKind.stopped, OutcomeKind.tookEffect], 0, "Stopped — some work had already happened"],
    ["an effect took place and a lock stayed", [OutcomeKind.tookEffect], 1, "Stopped — some work had already happened"],
    ["an outcome is not known yet", [OutcomeKind.outcomeUnknown], 0, "Stopped — some work had already happened"],
  ])("%s", (_, kinds, orphaned, words) => {
    expect(partialStopHeadline(kinds, orphaned)).toBe(words);
  });
});
