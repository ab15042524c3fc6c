import { describe, expect, it } from "vitest";
import { contract, type RouteContract } from "../../../lib/api/contract";
import { TokenRole } from "../../../lib/ledger/states";
import { capabilitiesOf, NO_CAPABILITIES, type Capabilities } from "../../../lib/auth/capabilities";
import { CONSOLE_ROLES, PERSON_ROLES, type Role } from "../../../lib/auth/permissions";

/**
 * The console shows a write control only when `capabilitiesOf(role)` allows it, and the API enforces the
 * contract's `auth` arrays. These tests tie the two together, so that hiding a button and refusing the
 * request can never drift apart: each capability is true exactly for the roles the routes behind it admit.
 */

const ROLES = [...new Set<Role>([...Object.values(TokenRole), ...PERSON_ROLES])];
const routes = contract as Record<string, RouteContract>;
const admits = (route: RouteContract, role: Role) => route.auth !== "public" && route.auth.includes(role);

/** Each capability and the routes its controls call (every one of them must admit exactly the same roles). */
const ROUTES_OF: Record<keyof Capabilities, (keyof typeof contract)[]> = {
  stop: ["cancelTask"],
  decideReviews: ["decideReviewItem"],
  seeEscalations: ["listEscalations", "listEscalationChannels"],
  manageEscalations: ["createEscalationChannel", "deactivateEscalationChannel", "sendEscalationTest"],
  administer: ["createToken", "listDemoServices", "setDemoFaults"],
};

describe("capabilitiesOf", () => {
  it("names every capability it computes", () => {
    expect(Object.keys(capabilitiesOf("admin")).sort()).toEqual(Object.keys(ROUTES_OF).sort());
    expect(Object.keys(NO_CAPABILITIES).sort()).toEqual(Object.keys(ROUTES_OF).sort());
    expect(Object.values(NO_CAPABILITIES).every((v) => v === false)).toBe(true);
  });

  for (const role of ROLES) {
    it(`${role}: each capability is true exactly when the contract admits the role to its routes`, () => {
      const can = capabilitiesOf(role);
      for (const [capability, names] of Object.entries(ROUTES_OF) as [keyof Capabilities, (keyof typeof contract)[]][]) {
        for (const name of names) {
          expect(can[capability], `${capability} vs contract.${name}.auth for ${role}`).toBe(admits(routes[name], role));
        }
      }
    });
  }

  it("support reads every console page's data and is admitted to no write route", () => {
    for (const name of [
      "listTasks",
      "getTask",
      "taskEvents",
      "allEvents",
      "listReviewItems",
      "metrics",
      "audit",
      "getCancellation",
      "listEscalations",
    ] as const) {
      expect(admits(routes[name], "support"), `support may read contract.${name}`).toBe(true);
    }
    const writes = Object.entries(routes).filter(([, r]) => r.method !== "GET" && r.auth !== "public");
    expect(writes.length).toBeGreaterThan(5);
    for (const [name, route] of writes)
      expect(admits(route, "support"), `support must not be admitted to contract.${name} (${route.method} ${route.path})`).toBe(false);
    expect(Object.values(capabilitiesOf("support")).filter(Boolean)).toEqual([true]); // seeEscalations only
    expect(capabilitiesOf("support").seeEscalations).toBe(true);
  });

  it("operators decide reviews and stop; only admins administer; console roles read the console's data", () => {
    expect(capabilitiesOf("operator")).toMatchObject({ stop: true, decideReviews: true, administer: false });
    expect(capabilitiesOf("user")).toMatchObject({ decideReviews: false, seeEscalations: false, administer: false });
    expect(capabilitiesOf("admin")).toEqual({ stop: true, decideReviews: true, seeEscalations: true, manageEscalations: true, administer: true });
    for (const role of CONSOLE_ROLES) {
      for (const name of ["listTasks", "getTask", "listReviewItems", "metrics", "audit", "allEvents"] as const) {
        expect(admits(routes[name], role), `${role} opens the console, so contract.${name} must admit it`).toBe(true);
      }
    }
  });
});
