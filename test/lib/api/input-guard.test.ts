import { describe, expect, it } from "vitest";
import { assertAcceptableBody, assertAcceptableInput, MAX_JSON_DEPTH, textProblem } from "../../../lib/api/input-guard";

const refusal = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return { message: (e as Error).message, field: (e as { details?: { field?: string } }).details?.field };
  }
  return null;
};

describe("input every database accepts alike (issue 11, item 8)", () => {
  it.each([
    ["plain text", "two chairs", null],
    ["a surrogate pair (an emoji) is valid Unicode", "chairs 🪑", null],
    ["a NUL byte", "a\u0000b", /NUL character/],
    ["a lone high surrogate", "x\ud800y", /unpaired UTF-16 surrogate/],
    ["a lone low surrogate", "x\udc00", /unpaired UTF-16 surrogate/],
    ["a reversed pair", "\udc00\ud800", /unpaired UTF-16 surrogate/],
    ["overlong UTF-8 '%C0%AE' once decoded by a lenient decoder", "\u00c0\u00ae", null],
  ])("%s", (_name, text, problem) => {
    const p = textProblem(text);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });

  it("names the field where the problem is: nested fields, array positions, keys", () => {
    expect(refusal(() => assertAcceptableBody({ title: "a\u0000" }))).toEqual({ field: "title", message: expect.stringMatching(/^title: contains a NUL/) });
    expect(refusal(() => assertAcceptableBody({ input: { items: ["ok", "x\ud800"] } }))?.field).toBe("input.items.1");
    expect(refusal(() => assertAcceptableBody({ input: { ["k\u0000"]: 1 } }))?.field).toBe("input (a key)");
    expect(refusal(() => assertAcceptableInput({ taskId: "a\u0000b" }, "(path)"))?.field).toBe("taskId");
  });

  it(`refuses JSON nested more than ${MAX_JSON_DEPTH} levels — a 5,000-deep document without overflowing the stack`, () => {
    const deep = JSON.parse(`{"input":${"[".repeat(5000)}1${"]".repeat(5000)}}`);
    const r = refusal(() => assertAcceptableBody(deep));
    expect(r?.message).toMatch(new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep`));
    expect(r?.field).toMatch(/^input(\.0)+$/);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) ok = [ok];
    expect(refusal(() => assertAcceptableBody({ input: ok }))).toBeNull();
  });
});
