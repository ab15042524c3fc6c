/**
 * The gateway's published results in the official MCP conformance suite (@modelcontextprotocol/conformance
 * 0.2.0-alpha.12, `server --requirements <revision>`), per spec revision: every scenario the revision requires
 * (and the ones it runs without scoring), whether the gateway passes it, and for each that fails, why. The README's
 * table is this file; lib/mcp-gateway/conformance.int.test.ts runs the suite and fails when a verdict differs.
 */
export const CONFORMANCE_REVISIONS = ["2025-11-25", "2026-07-28"] as const;
export type Revision = (typeof CONFORMANCE_REVISIONS)[number];
export interface ScenarioResult {
  passed: boolean;
  failures: string[];
}
export interface Expected {
  passes: boolean;
  /** Why it fails: a feature the gateway does not serve, or a bug (with what is known of it). */
  why?: string;
  scored: boolean;
}

export const EXPECTED_CONFORMANCE: Record<Revision, Record<string, Expected>> = {
  "2025-11-25": {},
  "2026-07-28": {},
};
