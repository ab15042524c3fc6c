import { describe, expect, it } from "vitest";
import { orphanedResourceReviewSentence } from "../../../lib/outcomes/review-words";

describe("orphanedResourceReviewSentence: one line per resource, each naming it (issue 20, item 7)", () => {
  it.each<[string | null, string]>([
    ["lock", "An operator releases the lock that could not be released"],
    ["temp_file", "An operator releases the temp file that could not be released"],
    [null, "An operator releases what could not be released"],
  ])("%s", (type, words) => {
    expect(orphanedResourceReviewSentence(type)).toBe(words);
  });

  it("a lock and a temp file never read as the same line", () => {
    expect(orphanedResourceReviewSentence("lock")).not.toBe(orphanedResourceReviewSentence("temp_file"));
  });
});
