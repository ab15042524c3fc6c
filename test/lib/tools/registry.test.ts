import { describe, expect, it } from "vitest";
import { AppError } from "../../../lib/errors";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { contractProblems, ToolRegistry } from "../../../lib/tools/registry";

const base: ToolDefinition = { name: "t.tool", kind: "local_worker", risk: "low", commitsEffect: false, mechanism: "abort_signal", run: async () => null };

describe("registering a tool validates its contract", () => {
  it("a tool that commits effects without inspect() and without mechanism none is refused, with the reason", () => {
    const registry = new ToolRegistry();
    const tool: ToolDefinition = { ...base, name: "shop.place_order", kind: "external_action", commitsEffect: true, mechanism: "abort_signal" };
    expect(() => registry.register(tool)).toThrow(AppError);
    expect(() => registry.register(tool)).toThrow(/commits external effects but has no inspect\(\).*must not ship/);
    expect(registry.get("shop.place_order")).toBeUndefined();
  });

  it("the same tool declaring mechanism none (reported UNRECOVERABLE) is accepted", () => {
    expect(contractProblems({ ...base, commitsEffect: true, mechanism: "none" })).toEqual([]);
  });

  it("provider_cancel needs cancel(); rollback needs rollback(); cleanup and verifyReleased come together; compensate needs inspect", () => {
    expect(contractProblems({ ...base, mechanism: "provider_cancel" })).toEqual(['mechanism "provider_cancel" needs cancel(ref)']);
    expect(contractProblems({ ...base, mechanism: "rollback" })).toEqual(['mechanism "rollback" needs rollback(ref)']);
    expect(contractProblems({ ...base, cleanup: async () => {} })[0]).toMatch(/cleanup\(resource\) and verifyReleased\(resource\) come together/);
    expect(contractProblems({ ...base, compensate: async () => ({ status: "compensated" }) })[0]).toMatch(/compensate\(\) needs inspect\(\)/);
    // written ahead (issue 19): resources a call may hold need inspect() to report what a call whose answer was lost holds
    expect(contractProblems({ ...base, resources: ["lock"] })[0]).toMatch(/declares resources .* no inspect\(\)/);
    expect(contractProblems({ ...base, resources: ["lock"], inspect: async () => ({ status: "not_committed", holds: [] }) })).toEqual([]);
    expect(contractProblems({ ...base, resources: ["a lock"], inspect: async () => ({ status: "not_committed", holds: [] }) })[0]).toMatch(/resource kind/);
  });

  it("a name is required and unique", () => {
    const registry = new ToolRegistry().register(base);
    expect(() => registry.register(base)).toThrow(/already registered/);
    expect(contractProblems({ ...base, name: "has spaces" })[0]).toMatch(/name/);
  });
});
