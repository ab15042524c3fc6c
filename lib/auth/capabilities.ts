import { allows, Roles, type Role } from "./permissions";

/**
 * What a signed-in principal may do in the console, derived from the one permission map (lib/auth/permissions.ts).
 * Pages compute it on the server and pass it to their components, which show a control only when it is true.
 * Hiding is a courtesy: the API enforces the same groups on every route (lib/api/route.ts).
 */
export interface Capabilities {
  /** Press Stop on a task from the console. */
  stop: boolean;
  /** Approve or reject compensations, resolve uncertain items and orphans. */
  decideReviews: boolean;
  /** Read escalations and their delivery log. */
  seeEscalations: boolean;
  /** Create and remove escalation channels. */
  manageEscalations: boolean;
  /** Accounts, API tokens, demo fault controls. */
  administer: boolean;
}

export function capabilitiesOf(role: Role): Capabilities {
  return {
    stop: allows(Roles.stoppers, role),
    decideReviews: allows(Roles.reviewers, role),
    seeEscalations: allows(Roles.oversight, role),
    manageEscalations: allows(Roles.escalations, role),
    administer: allows(Roles.admin, role),
  };
}

/** Nothing allowed: for a page rendered without a principal. */
export const NO_CAPABILITIES: Capabilities = { stop: false, decideReviews: false, seeEscalations: false, manageEscalations: false, administer: false };
