import type { TokenRole } from "../ledger/states";

/**
 * Who may do what — the one permission map. Machine clients (API tokens) have the token roles
 * (admin, agent, worker); people (Better Auth accounts) have the person roles below. The contract's
 * `auth` arrays (lib/api/contract.ts) are built from these groups, and lib/api/route.ts enforces them
 * for every route; per-object rules (a user's own tasks) are in lib/auth/ownership.ts.
 */
export const PersonRole = { user: "user", operator: "operator", support: "support", admin: "admin" } as const;
export type PersonRole = (typeof PersonRole)[keyof typeof PersonRole];
export const PERSON_ROLES = Object.values(PersonRole) as PersonRole[];

/** Any role a principal can have: a token role or a person role (`admin` is both). */
export type Role = TokenRole | PersonRole;

export const isPersonRole = (role: string): role is PersonRole => (PERSON_ROLES as string[]).includes(role);

/** Named groups the contract uses. */
export const Roles = {
  /** Read the ledger: every machine role, and every person (users only their own objects). */
  read: ["admin", "agent", "worker", "user", "operator", "support"],
  /** Read everything across owners (no per-owner filter): not `user`. */
  readAll: ["admin", "agent", "worker", "operator", "support"],
  /** Read the agent's side (tasks, cancellation): machines and people. */
  agents: ["admin", "agent"],
  /** Act as / for a person on their own tasks: start a request, confirm a proposal, Stop. */
  ownTasks: ["admin", "agent", "user"],
  /** Stop a task: the person on their own tasks, agents, operators. */
  stoppers: ["admin", "agent", "user", "operator"],
  /** Workers report progress. */
  workers: ["admin", "worker"],
  /** Decide review items (approve/reject compensations, resolve). */
  reviewers: ["admin", "operator"],
  /** Configure escalation channels (where escalations go): operators handle escalations, admins administer. */
  escalations: ["admin", "operator"],
  /** People who oversee Stopline (read escalations and their delivery log): not machines, not users. */
  oversight: ["admin", "operator", "support"],
  /** Administration: accounts, tokens, demo controls. */
  admin: ["admin"],
} as const satisfies Record<string, readonly Role[]>;

/** Roles whose reads are limited to the objects they own (ownerId = their id). */
export const OWNER_SCOPED: readonly Role[] = ["user"];

/** Which people open the console (support reads, operators decide, admins administer). */
export const CONSOLE_ROLES: readonly Role[] = ["admin", "operator", "support"];

/** May this role perform a route whose contract allows `allowed`? */
export const allows = (allowed: readonly string[], role: string) => allowed.includes(role);
