import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { benchOutputProblem, BENCHES } from "../../../scripts/test/benches";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

describe("the benchmarks npm test runs in smoke size", () => {
  it("every bench:* script of package.json is one of them (a new benchmark cannot be left out and rot)", () => {
    const scripts = Object.keys(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts).filter((s) => s.startsWith("bench:"));
    expect(BENCHES.map((b) => b.script).sort()).toEqual(scripts.sort());
  });

  it.each([
    ["finished: the last line is a JSON object of numbers", 'warming up\n{"a":1,"b":2.5}\n', null],
    ["printed nothing", "", /printed nothing/],
    ["stopped before its figures", "run 1: …\n", /not JSON/],
    ["a figure that was never measured (NaN → null)", '{"a":1,"b":null}', /b=null/],
    ["not an object", "[1,2]", /not a JSON object/],
    ["no figures", "{}", /no figures/],
  ])("%s", (_, stdout, problem) => {
    const found = benchOutputProblem(stdout);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});
