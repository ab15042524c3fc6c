import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../lib/api/openapi";

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { description?: string; responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, { description?: string }> } }> }> }
    >
  >;
};
const doc = () => openApiDocument() as unknown as Doc;

describe("the OpenAPI document (what /api-docs shows)", () => {
  it("names the MCP gateway's endpoint /api/mcp: its methods, who may use it, both protocol eras and the stdio relay for clients without headers", () => {
    const mcp = doc().paths["/api/mcp"];
    expect(Object.keys(mcp).sort()).toEqual(["delete", "get", "post"]);
    expect(mcp.post.description).toMatch(/^Roles: admin, agent/);
    expect(mcp.post.description).toMatch(/2025-11-25/);
    expect(mcp.post.description).toMatch(/2026-07-28/);
    expect(mcp.post.description).toMatch(/npx stopline-mcp-stdio/);
    expect(Object.keys(mcp.post.responses)).toEqual(expect.arrayContaining(["200", "202", "401", "404"]));
  });

  it("defines each of the cancellation summary's lists: which children it holds, and which it does not", () => {
    const summary = doc().paths["/api/tasks/{taskId}/cancellation"].get.responses["200"].content!["application/json"].schema.properties!;
    expect(summary.cancelled_tool_calls.description).toMatch(/^Children alive at the Stop that it stopped.*Not listed: a read we only stopped waiting for/);
    expect(summary.completed_tool_calls.description).toMatch(/ended at or after the Stop.*finished before the Stop is not listed here; it is in tool_calls/);
    expect(summary.uncertain_tool_calls.description).toMatch(/not known yet/);
    expect(summary.orphaned_side_effects.description).toMatch(/took effect/);
  });
});
