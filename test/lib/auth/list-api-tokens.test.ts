import { afterEach, describe, expect, it, vi } from "vitest";
import { bootstrapTokenStatus } from "../../../lib/auth/list-api-tokens";

/** Issue 20, item 7: the token page said "API tokens 0 — No API tokens yet." while the bootstrap token signed people in. */
describe("bootstrapTokenStatus: live exactly when the bootstrap token can sign in", () => {
  afterEach(() => vi.unstubAllEnvs());
  it.each<[string, string | undefined, boolean]>([
    ["set (as on a first start)", "stl_bootstrap_token_0123456789", true],
    ["unset", undefined, false],
    ["too short to be accepted", "short", false],
  ])("%s", (_, value, active) => {
    if (value === undefined) vi.stubEnv("STOPLINE_BOOTSTRAP_TOKEN", "");
    else vi.stubEnv("STOPLINE_BOOTSTRAP_TOKEN", value);
    expect(bootstrapTokenStatus()).toEqual({ active });
  });
});
