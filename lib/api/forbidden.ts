import type { Principal } from "../auth/tokens";
import { contract, type RouteContract } from "./contract";

/**
 * The 403 of a role that may not call a route, in one sentence: what was refused, why (what that role is for)
 * and what to use instead (the roles the route admits) — e.g. "A worker token cannot stop a task: worker tokens
 * only run work items (claim, heartbeat, report); use an agent or admin token, or sign in as the task's owner, an
 * operator or an admin." (Issue 24: it used to paste the route's description into the error.)
 */
export function forbiddenMessage(route: RouteContract, principal: Pick<Principal, "kind" | "role">): string {
  const person = principal.kind === "person";
  const who = person ? `${article(principal.role)} ${principal.role}` : `${article(principal.role)} ${principal.role} token`;
  return `${capitalise(who)} cannot ${actionOf(route)}: ${purpose(principal.role, person)}; ${instead(route.auth as readonly string[])}.`;
}

/** What each role is for, as the reason it is refused. */
function purpose(role: string, person: boolean): string {
  if (!person) {
    if (role === "worker") return "worker tokens only run work items (claim, heartbeat, checkpoint, report)";
    if (role === "agent") return "agent tokens create, run and stop tasks, and read the ledger";
    return `${role} tokens do not include this`;
  }
  if (role === "user") return "people with the user role work on their own conversations and tasks";
  if (role === "support") return "support reads everything and changes nothing";
  if (role === "operator") return "operators stop tasks and decide review items, but do not administer";
  return `the ${role} role does not include this`;
}

/** The roles that may: tokens first, then people. */
function instead(allowed: readonly string[]): string {
  const tokens = ["agent", "worker", "admin"].filter((r) => allowed.includes(r));
  const people = ["user", "operator", "support", "admin"].filter((r) => allowed.includes(r));
  const named = people.map((r) => (r === "user" ? "the task's owner" : `${article(r)} ${r}`));
  const parts: string[] = [];
  if (tokens.length) parts.push(`use ${article(tokens[0])} ${list(tokens)} token`);
  if (named.length) parts.push(`sign in as ${list(named)}`);
  return parts.length ? parts.join(", or ") : "no role may";
}

const ACTIONS: Partial<Record<keyof typeof contract, string>> = {
  createTask: "create a task",
  scheduleWorkItem: "schedule work items",
  startWorkItem: "start work items",
  cancelTask: "stop a task",
  completeTask: "complete a task",
  failTask: "fail a task",
  requestReversal: "ask to reverse a task",
  stopWorkItem: "stop a step",
  stopConversation: "stop a conversation",
  stopPerson: "stop everything of a person",
  openIncident: "turn on a kill switch",
  requestIncidentLift: "ask to lift a kill switch",
  confirmIncidentLift: "lift a kill switch",
  withdrawIncidentLift: "withdraw a kill switch's lift",
  claim: "claim work items",
  heartbeat: "report on a work item",
  checkpoint: "pass a work item's checkpoint",
  submitted: "report on a work item",
  complete: "report how a work item ended",
  reportPartial: "report a partial result",
  reportProgress: "report progress",
  markUncertain: "report on a work item",
  holdResource: "record a resource",
  intendResources: "record a resource",
  settleResourceIntents: "record a resource",
  releaseResource: "release a resource",
  listReviewItems: "read review items",
  decideReviewItem: "decide review items",
  retryRelease: "retry a release",
  sendMessage: "send a chat message",
  stopTurn: "stop a turn",
  editProposal: "edit a proposal",
  confirmProposal: "confirm a proposal",
  createToken: "create API tokens",
  listTokens: "list API tokens",
  revokeToken: "revoke API tokens",
  listAccounts: "list accounts",
  createAccount: "create accounts",
  changeAccountRole: "change roles",
  disableAccount: "disable accounts",
  enableAccount: "enable accounts",
  adminHistory: "read the administration history",
  listEscalationChannels: "read escalation channels",
  createEscalationChannel: "add escalation channels",
  deactivateEscalationChannel: "remove escalation channels",
  sendEscalationTest: "send a test escalation",
  listEscalations: "read the escalation log",
  setDemoFaults: "set the demo services' faults",
  audit: "read the audit",
};

const byRoute = new Map<RouteContract, string>(
  Object.entries(ACTIONS).map(([key, action]) => [contract[key as keyof typeof contract] as RouteContract, action!]),
);

const actionOf = (route: RouteContract) => byRoute.get(route) ?? `call ${route.method} ${route.path}`;
const article = (word: string) => (/^[aeio]/i.test(word) ? "an" : "a"); // "a user", "an operator"
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const list = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`);
