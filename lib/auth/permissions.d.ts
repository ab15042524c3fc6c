import { TokenRole } from "../ledger/states";
/**
 * Who may do what — the one permission map. Machine clients (API tokens) have the token roles
 * (admin, agent, worker); people (Better Auth accounts) have the person roles below. The contract's
 * `auth` arrays (lib/api/contract.ts) are built from these groups, and lib/api/route.ts enforces them
 * for every route; per-object rules (a user's own tasks) are in lib/auth/ownership.ts.
 */
export declare const PersonRole: {
    readonly user: "user";
    readonly operator: "operator";
    readonly support: "support";
    readonly admin: "admin";
};
export type PersonRole = (typeof PersonRole)[keyof typeof PersonRole];
export declare const PERSON_ROLES: PersonRole[];
/** Any role a principal can have: a token role or a person role (`admin` is both). */
export type Role = TokenRole | PersonRole;
export declare const isPersonRole: (role: string) => role is PersonRole;
/** Named groups the contract uses. */
export declare const Roles: {
    /** Read the ledger: every machine role, and every person (users only their own objects). */
    readonly read: readonly ["admin", "agent", "worker", "user", "operator", "support"];
    /** Read everything across owners (no per-owner filter): not `user`. */
    readonly readAll: readonly ["admin", "agent", "worker", "operator", "support"];
    /** Read the agent's side (tasks, cancellation): machines and people. */
    readonly agents: readonly ["admin", "agent"];
    /** Act as / for a person on their own tasks: start a request, confirm a proposal, Stop. */
    readonly ownTasks: readonly ["admin", "agent", "user"];
    /** Stop a task: the person on their own tasks, agents, operators. */
    readonly stoppers: readonly ["admin", "agent", "user", "operator"];
    /** Workers report progress. */
    readonly workers: readonly ["admin", "worker"];
    /** Decide review items (approve/reject compensations, resolve). */
    readonly reviewers: readonly ["admin", "operator"];
    /** Configure escalation channels (where escalations go): operators handle escalations, admins administer. */
    readonly escalations: readonly ["admin", "operator"];
    /** People who oversee Stopline (read escalations and their delivery log): not machines, not users. */
    readonly oversight: readonly ["admin", "operator", "support"];
    /** Administration: accounts, tokens, demo controls. */
    readonly admin: readonly ["admin"];
};
/** Roles whose reads are limited to the objects they own (ownerId = their id). */
export declare const OWNER_SCOPED: readonly Role[];
/** Which people open the console (support reads, operators decide, admins administer). */
export declare const CONSOLE_ROLES: readonly Role[];
/** May this role perform a route whose contract allows `allowed`? */
export declare const allows: (allowed: readonly string[], role: string) => boolean;
