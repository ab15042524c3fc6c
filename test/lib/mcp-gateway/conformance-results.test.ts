import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONFORMANCE_REVISIONS, EXPECTED_CONFORMANCE, README_MARKERS, renderConformanceSection } from "../../../lib/mcp-gateway/conformance-results";

describe("the published MCP conformance results", () => {
  it("the README's tables are the ones conformance.int.test.ts holds the gateway to (npx tsx lib/mcp-gateway/conformance-results.ts rewrites them)", () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, "../../../README.md"), "utf8");
    const between = readme.slice(readme.indexOf(README_MARKERS.start) + README_MARKERS.start.length, readme.indexOf(README_MARKERS.end)).trim();
    expect(between).toBe(renderConformanceSection().trim());
  });

  it("every failing scenario says why; a passing one does not", () => {
    for (const revision of CONFORMANCE_REVISIONS) {
      for (const [scenario, e] of Object.entries(EXPECTED_CONFORMANCE[revision])) {
        expect(!!e.why, `${revision} ${scenario}`).toBe(!e.passes);
      }
    }
  });
});
