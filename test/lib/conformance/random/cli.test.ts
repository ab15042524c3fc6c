import { afterEach, describe, expect, it, vi } from "vitest";
import { runRandomCli, scenarioIndexes } from "../../../../lib/conformance/random/cli";

describe("the random mode's command line", () => {
  afterEach(() => vi.restoreAllMocks());

  it("--from K runs scenarios K … N-1 of the run: a long run split over sittings runs the same scenarios", () => {
    expect(scenarioIndexes(2000, undefined, 0)).toBeUndefined();
    const second = scenarioIndexes(2000, undefined, 1000);
    expect(second).toHaveLength(1000);
    expect(second?.[0]).toBe(1000);
    expect(second?.at(-1)).toBe(1999);
    expect(scenarioIndexes(2000, [7, 12], 0)).toEqual([7, 12]);
  });

  it.each<[{ random: string; from: string; only?: string[] }, string]>([
    [{ random: "10", from: "10" }, "from past the end"],
    [{ random: "10", from: "-1" }, "a negative from"],
    [{ random: "10", from: "two" }, "a from that is not a number"],
    [{ random: "10", from: "3", only: ["5"] }, "from with only"],
  ])("refuses %o (%s) with the usage and exit code 2, running nothing", async (args, _why) => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await runRandomCli(args)).toBe(2);
    expect(error.mock.calls[0][0]).toContain("--from <index < N>");
  });
});
