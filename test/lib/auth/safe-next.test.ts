import { describe, expect, it } from "vitest";
import { safeNextPath } from "../../../lib/auth/safe-next";

describe("open redirect after sign-in (issue 11, item 4): only same-origin paths", () => {
  it.each([
    ["/console", "/console"],
    ["/console/tasks/abc?tab=events#raw", "/console/tasks/abc?tab=events#raw"],
    ["/chat/c-1", "/chat/c-1"],
    ["/a/../console", "/console"],
    ["/%2F%2Fevil.example", "/%2F%2Fevil.example"], // an encoded slash is a path on this site, not a host
  ])("kept: %s", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    "/\\evil.example/",
    "/\\/evil.example",
    "\\\\evil.example",
    "//evil.example/path",
    "///evil.example",
    "https://evil.example/",
    "http:/evil.example",
    "javascript:alert(1)",
    "evil.example",
    "/\tevil",
    "/\n/evil.example",
    "/ /evil.example",
    "",
    `/${"a".repeat(2_001)}`,
  ])("refused: %j", (next) => {
    expect(safeNextPath(next)).toBeNull();
  });

  it("what the browser would do with each refused value is another origin or not a path at all", () => {
    for (const evil of ["/\\evil.example/", "//evil.example/path"]) expect(new URL(evil, "http://localhost:3000").origin).not.toBe("http://localhost:3000");
  });
});
