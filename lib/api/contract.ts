import type { z } from "zod";
import { Roles, type Role } from "../auth/permissions";
import * as s from "./schemas";

/**
 * The HTTP API, declared once: route handlers are built from these entries (lib/api/route.ts), the OpenAPI
 * document is generated from them (lib/api/openapi.ts), and the SDK calls through them.
 */
export interface RouteContract {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  /** Roles allowed (token and person roles; groups from lib/auth/permissions.ts); "public" needs no credentials. */
  auth: readonly Role[] | "public";
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  /** Success status (200 unless said). */
  status?: number;
  /** A server-sent event stream instead of JSON. */
  stream?: true;
  /** Starts work (a task, a child, a claim): refused (409 quarantined) for a token an incident's kill switch quarantines. */
  startsWork?: true;
}

// Who may call what: the groups of the permission map (lib/auth/permissions.ts). A `user` reads and stops
// only their own tasks (the handlers check ownership, lib/auth/ownership.ts); `support` reads everything and
// writes nothing; `operator` also decides review items.
const ALL = Roles.readAll;
const OWN_READ = Roles.read;
const AGENTS = Roles.agents;
const OWN_TASKS = Roles.ownTasks;
const STOPPERS = Roles.stoppers;
const WORKERS = Roles.workers;

export const contract = {
  createTask: { startsWork: true, method: "POST", path: "/api/tasks", summary: "Create a task (one user request handled by an agent)", auth: AGENTS, body: s.CreateTaskBody, response: s.TaskSchema, status: 201 },
  listTasks: { method: "GET", path: "/api/tasks", summary: "List tasks, newest first; filter by status (comma-separated) and conversation", auth: OWN_READ, query: s.ListTasksQuery, response: s.TaskListSchema },
  getTask: { method: "GET", path: "/api/tasks/{taskId}", summary: "A task with its work items, resources, side effects and review items", auth: OWN_READ, params: s.TaskParams, response: s.TaskDetailSchema },
  scheduleWorkItem: {
    startsWork: true, method: "POST", path: "/api/tasks/{taskId}/work-items", auth: AGENTS, params: s.TaskParams, body: s.ScheduleWorkItemBody, response: s.WorkItemSchema, status: 201,
    summary: "Schedule a child work item; 409 once the task's cancellation was requested or when intentVersion is stale",
  },
  startWorkItem: {
    startsWork: true, method: "POST", path: "/api/tasks/{taskId}/work-items/start", auth: WORKERS, params: s.TaskParams, body: s.StartWorkItemBody, response: s.ClaimedWorkItemSchema, status: 201,
    summary: "Schedule a child and lease it to the caller in one step, for work the caller runs itself (an AI SDK tool call, an MCP gateway call); 409 once the task's cancellation was requested or when intentVersion is stale",
  },
  cancelTask: {
    method: "POST", path: "/api/tasks/{taskId}/cancel", auth: STOPPERS, params: s.TaskParams, body: s.CancelBody, response: s.CancelResponseSchema, status: 202,
    summary: "Stop: record the cancellation boundary (intent version +1) before anything else; a repeat returns the same boundary",
  },
  completeTask: {
    method: "POST", path: "/api/tasks/{taskId}/complete", auth: AGENTS, params: s.TaskParams, body: s.CompleteTaskBody, response: s.FinishTaskResponseSchema,
    summary: "The agent finished the task (every child has ended): it shows as completed everywhere, and Stop on it answers that nothing is running; a repeat changes nothing",
  },
  failTask: {
    method: "POST", path: "/api/tasks/{taskId}/fail", auth: AGENTS, params: s.TaskParams, body: s.FailTaskBody, response: s.FinishTaskResponseSchema,
    summary: "The agent gave up on the task (every child has ended), with the reason; a repeat changes nothing",
  },
  requestReversal: {
    method: "POST", path: "/api/tasks/{taskId}/reversal", auth: STOPPERS, params: s.TaskParams, body: s.ReversalBody, response: s.ReversalResponseSchema,
    summary: "Ask to undo what a finished task did: a review item per reversible effect, approved by another person (same rules as after a Stop); never a side effect of Stop",
  },
  getCancellation: {
    method: "GET", path: "/api/tasks/{taskId}/cancellation", auth: OWN_READ, params: s.TaskParams, response: s.CancellationSummarySchema,
    summary: "The cancellation summary (what stopped, what completed, what is uncertain), from recorded facts only",
  },
  stopWorkItem: {
    method: "POST", path: "/api/work-items/{id}/cancel", auth: STOPPERS, params: s.WorkItemParams, body: s.CancelBody, response: s.ChildCancelResponseSchema, status: 202,
    summary: "Stop one step (and its descendants) while the rest of the task goes on: its own boundary first (queued descendants never start, its commitment's checkpoint is refused), then each running one is stopped through its mechanism; a repeat returns the same boundary",
  },
  getWorkItemCancellation: {
    method: "GET", path: "/api/work-items/{id}/cancellation", auth: OWN_READ, params: s.WorkItemParams, response: s.CancellationSummarySchema,
    summary: "The summary of a Stop of one step (scope work_item): the step and its descendants, from recorded facts only; 404 if it was not stopped alone",
  },
  stopConversation: {
    method: "POST", path: "/api/conversations/{conversationId}/cancel", auth: STOPPERS, params: s.ConversationParams, body: s.CancelBody, response: s.ManyCancelResponseSchema, status: 202,
    summary: "Stop everything of a conversation: a boundary on each of its tasks still active (scope conversation), each then stopped like its own Stop; a repeat changes nothing",
  },
  stopPerson: {
    method: "POST", path: "/api/people/{ownerId}/cancel", auth: STOPPERS, params: s.PersonParams, body: s.CancelBody, response: s.ManyCancelResponseSchema, status: 202,
    summary: "Stop everything of a person (by owner id; a user only their own): a boundary on each of their tasks still active (scope person)",
  },
  listIncidents: {
    method: "GET", path: "/api/incidents", auth: Roles.oversight, response: s.IncidentListSchema,
    summary: "Every incident's kill switch, newest first: on or lifted, tasks touched, open review items",
  },
  openIncident: {
    method: "POST", path: "/api/incidents", auth: Roles.reviewers, body: s.OpenIncidentBody, response: s.OpenIncidentResponseSchema, status: 201,
    summary: "Quarantine a tool or an agent token: from the commit nothing of it is scheduled or claimed anywhere (409 quarantined, with the reason), and everything of it in flight is stopped like a Stop",
  },
  listIncidentTargets: {
    method: "GET", path: "/api/incidents/targets", auth: Roles.reviewers, response: s.IncidentTargetsSchema,
    summary: "What a kill switch can name: the tools the ledger knows (exact names, with their live work items) and the agent and worker tokens (by id)",
  },
  getIncident: {
    method: "GET", path: "/api/incidents/{id}", auth: Roles.oversight, params: s.IncidentParams, response: s.IncidentDetailSchema,
    summary: "One incident: the switch, the tasks it touched, each stopped step's outcome, and what needs a person",
  },
  requestIncidentLift: {
    method: "POST", path: "/api/incidents/{id}/lift", auth: Roles.reviewers, params: s.IncidentParams, body: s.LiftIncidentBody, response: s.IncidentSchema,
    summary: "Ask to lift a kill switch (with why); it stays on until another person confirms (maker-checker)",
  },
  confirmIncidentLift: {
    method: "POST", path: "/api/incidents/{id}/lift/confirm", auth: Roles.reviewers, params: s.IncidentParams, body: s.EmptyBody, response: s.IncidentSchema,
    summary: "Confirm lifting a kill switch — never by the person who asked (403); from the commit its target may start work again",
  },
  withdrawIncidentLift: {
    method: "POST", path: "/api/incidents/{id}/lift/withdraw", auth: Roles.reviewers, params: s.IncidentParams, body: s.EmptyBody, response: s.IncidentSchema,
    summary: "Withdraw (or refuse) a request to lift a kill switch: it stays on",
  },
  stopPreview: {
    method: "GET", path: "/api/tasks/{taskId}/stop-preview", auth: OWN_READ, params: s.TaskParams, response: s.StopPreviewSchema,
    summary: "What Stop would do if pressed now — per child, the plan's action and the outcome it heads for, in the outcome vocabulary; computed from the same plan the engine records, writes nothing",
  },
  taskEvents: {
    method: "GET", path: "/api/tasks/{taskId}/events", auth: OWN_READ, params: s.TaskParams, query: s.EventsQuery, stream: true,
    summary: "Server-sent ledger events of one task; resume with Last-Event-ID (header) or lastEventId (query)",
  },
  allEvents: {
    method: "GET", path: "/api/events", auth: OWN_READ, query: s.EventsQuery, stream: true,
    summary: "Server-sent ledger events of every task the caller may see (a user: their own); resume with Last-Event-ID (header) or lastEventId (query)",
  },
  claim: {
    startsWork: true, method: "POST", path: "/api/workers/claim", auth: WORKERS, body: s.ClaimBody, response: s.ClaimResponseSchema,
    summary: "Claim the oldest queued work item that may start (lease + fencing token); workItem is null when there is none",
  },
  heartbeat: {
    method: "POST", path: "/api/work-items/{id}/heartbeat", auth: WORKERS, params: s.WorkItemParams, body: s.HeartbeatBody, response: s.HeartbeatResponseSchema,
    summary: "Extend the lease; answers whether cancellation was requested (stop when cancelRequested is true)",
  },
  checkpoint: {
    method: "POST", path: "/api/work-items/{id}/checkpoint", auth: WORKERS, params: s.WorkItemParams, body: s.CheckpointBody, response: s.CheckpointResponseSchema,
    summary: "The intent/proposal version check right before a commitment; 409 after the cancellation boundary or when a version moved",
  },
  submitted: {
    method: "POST", path: "/api/work-items/{id}/submitted", auth: WORKERS, params: s.WorkItemParams, body: s.SubmittedBody, response: s.SubmissionResponseSchema,
    summary: "Record the operation id of an external action the service accepted, before waiting for its result",
  },
  complete: {
    method: "POST", path: "/api/work-items/{id}/complete", auth: WORKERS, params: s.WorkItemParams, body: s.CompleteBody, response: s.WorkItemSchema,
    summary: "Report how the work item ended (completed, failed, or — after a stop — cancelled, partial, cancelled_incomplete)",
  },
  reportPartial: {
    method: "POST", path: "/api/work-items/{id}/partial", auth: WORKERS, params: s.WorkItemParams, body: s.PartialBody, response: s.OkSchema,
    summary: "Record a partial result (complete: true vouches that it is a complete, valid subset) before stopping",
  },
  reportProgress: {
    method: "POST", path: "/api/work-items/{id}/progress", auth: WORKERS, params: s.WorkItemParams, body: s.ProgressBody, response: s.ProgressSchema,
    summary: "Report how far the running call got (done of total, unit, message); shown live, changes no state",
  },
  markUncertain: {
    method: "POST", path: "/api/work-items/{id}/uncertain", auth: WORKERS, params: s.WorkItemParams, body: s.UncertainBody, response: s.WorkItemSchema,
    summary: "The lease holder does not know how an accepted action ended: hand it to reconciliation (never re-run)",
  },
  registerToolHost: {
    method: "POST", path: "/api/workers/hosts", auth: WORKERS, body: s.RegisterToolHostBody, response: s.ToolHostSchema,
    summary: "Announce (and renew) the tools this process runs itself and what it can do for their calls (inspect, cancel, rollback, compensate): the engine asks it",
  },
  claimToolRequests: {
    method: "POST", path: "/api/workers/requests", auth: WORKERS, body: s.ClaimToolRequestsBody, response: s.ToolRequestsSchema,
    summary: "Take the engine's open questions about this host's tools (waits up to waitMs for one); renews the registration",
  },
  answerToolRequest: {
    method: "POST", path: "/api/tool-requests/{id}/answer", auth: WORKERS, params: s.ToolRequestParams, body: s.AnswerToolRequestBody, response: s.ToolRequestAnswerSchema,
    summary: "The tool's own answer to a question this host took (an inspect outcome, a compensation result), or its error",
  },
  holdResource: {
    method: "POST", path: "/api/work-items/{id}/resources", auth: WORKERS, params: s.WorkItemParams, body: s.ResourceBody, response: s.ResourceSchema, status: 201,
    summary: "Record a resource the running code holds (lock, temp file, session); its release is verified after a Stop",
  },
  intendResources: {
    method: "POST", path: "/api/work-items/{id}/resource-intents", auth: WORKERS, params: s.WorkItemParams, body: s.ResourceIntentsBody, response: s.ResourceIntentsSchema,
    summary: "Written ahead: the kinds of resource this call may hold (lock, temp file …), recorded before its request leaves",
  },
  settleResourceIntents: {
    method: "POST", path: "/api/work-items/{id}/resource-intents/settle", auth: WORKERS, params: s.WorkItemParams, body: s.SettleResourceIntentsBody, response: s.ResourceIntentsSchema,
    summary: "The call returned its answer: the resource kinds written ahead that it never named hold nothing",
  },
  releaseResource: {
    method: "POST", path: "/api/work-items/{id}/resources/release", auth: WORKERS, params: s.WorkItemParams, body: s.ResourceBody, response: s.ResourceSchema,
    summary: "The running code released a resource (a claim: it is reported released only after verification)",
  },
  listReviewItems: {
    method: "GET", path: "/api/review-items", auth: ALL, query: s.ListReviewItemsQuery, response: s.ReviewItemListSchema,
    summary: "Review items (what only a person can decide), ordered by deadline",
  },
  decideReviewItem: {
    method: "POST", path: "/api/review-items/{id}/decision", auth: Roles.reviewers, params: s.ReviewItemParams, body: s.DecisionBody, response: s.DecisionResponseSchema,
    summary: "A person's decision: approve (bound to the exact proposal: target and version) or reject a compensation, or resolve an item",
  },
  retryRelease: {
    method: "POST", path: "/api/review-items/{id}/retry-release", auth: Roles.reviewers, params: s.ReviewItemParams, response: s.RetryReleaseResponseSchema,
    summary: "An orphaned resource: run the tool's cleanup again and verify with a re-query (each step recorded); released → the item is resolved, else it stays open",
  },
  metrics: {
    method: "GET", path: "/api/metrics/cancellations", auth: ALL, query: s.MetricsQuery, response: s.MetricsSchema,
    summary: "Generation vs action cancellations, with latency from the Stop boundary to settlement",
  },
  sendMessage: {
    startsWork: true, method: "POST", path: "/api/conversations/{conversationId}/messages", auth: OWN_TASKS, params: s.ConversationParams, body: s.MessageBody, response: s.TurnSchema, status: 201,
    summary: "A chat message to the demo agent: it starts a task, prepares (and, for purchases, proposes) — it never commits before a confirmation",
  },
  stopTurn: {
    method: "POST", path: "/api/conversations/{conversationId}/turns/{turnId}/cancel", auth: OWN_TASKS, params: s.TurnParams, body: s.StopTurnBody, response: s.CancelResponseSchema, status: 202,
    summary: "Stop a turn by the id its message carries — also before the agent's task exists: the task is then born with its boundary and nothing of it starts",
  },
  editProposal: {
    method: "POST", path: "/api/tasks/{taskId}/proposal", auth: OWN_TASKS, params: s.TaskParams, body: s.EditProposalBody, response: s.ProposalSchemaOut,
    summary: "Edit the proposal (a new version, which needs its own confirmation)",
  },
  confirmProposal: {
    method: "POST", path: "/api/tasks/{taskId}/proposal/confirm", auth: OWN_TASKS, params: s.TaskParams, body: s.ConfirmProposalBody, response: s.ConfirmationSchema, status: 201,
    summary: "Confirm the proposal version you saw: its commitments are scheduled bound to that version (409 if it changed)",
  },
  createToken: { method: "POST", path: "/api/tokens", auth: ["admin"], body: s.CreateTokenBody, response: s.CreatedTokenSchema, summary: "Create an API token (shown once)", status: 201 },
  listTokens: {
    method: "GET", path: "/api/tokens", auth: Roles.admin, response: s.ApiTokenListSchema,
    summary: "List API tokens (name, role, prefix, created, last used, revoked), active first; a token's hash is never shown",
  },
  revokeToken: {
    method: "DELETE", path: "/api/tokens/{id}", auth: Roles.admin, params: s.ApiTokenParams, response: s.ApiTokenListItemSchema,
    summary: "Revoke an API token: it authenticates nothing from the next request on; 404 for an unknown id, 409 if it was already revoked",
  },
  listAccounts: {
    method: "GET", path: "/api/accounts", auth: Roles.admin, response: s.AccountListSchema,
    summary: "List people's accounts (name, e-mail, role, created, disabled, active sessions), enabled first",
  },
  createAccount: {
    method: "POST", path: "/api/accounts", auth: Roles.admin, body: s.CreateAccountBody, response: s.AccountSchema, status: 201,
    summary: "Create a person's account with an initial password (hashed by Better Auth); 409 if the e-mail address is taken",
  },
  changeAccountRole: {
    method: "PATCH", path: "/api/accounts/{id}", auth: Roles.admin, params: s.AccountParams, body: s.ChangeAccountRoleBody, response: s.AccountSchema,
    summary: "Change a person's role (effective on their next request); 409 when it would leave no enabled admin",
  },
  disableAccount: {
    method: "POST", path: "/api/accounts/{id}/disable", auth: Roles.admin, params: s.AccountParams, response: s.AccountSchema,
    summary: "Disable an account: its sessions are deleted at once and sign-in is refused; 409 for your own account, the last enabled admin, or one already disabled",
  },
  enableAccount: {
    method: "POST", path: "/api/accounts/{id}/enable", auth: Roles.admin, params: s.AccountParams, response: s.AccountSchema,
    summary: "Enable a disabled account: the person can sign in again; 409 if it is not disabled",
  },
  adminHistory: {
    method: "GET", path: "/api/admin/history", auth: Roles.admin, query: s.AdminHistoryQuery, response: s.AdminHistorySchema,
    summary: "The history of administration, newest first: API tokens created and revoked, accounts created, re-roled, disabled and enabled, escalation channels added and removed — who, when, what; page with before (nextBefore) and limit, filter by entityType",
  },
  createSession: { method: "POST", path: "/api/session", auth: "public", body: s.SessionBody, response: s.SessionSchema, summary: "Console sign-in with an admin token (sets an httpOnly cookie)" },
  deleteSession: { method: "DELETE", path: "/api/session", auth: "public", summary: "Console sign-out", status: 204 },
  openapi: { method: "GET", path: "/api/openapi.json", auth: "public", summary: "This document" },
  listEscalationChannels: {
    method: "GET", path: "/api/escalation-channels", auth: Roles.oversight, response: s.EscalationChannelListSchema,
    summary: "Escalation channels (webhook, Slack-compatible), active first, each with its health from the delivery log (last success, failures in a row); secrets are never shown. Support reads them too",
  },
  createEscalationChannel: {
    method: "POST", path: "/api/escalation-channels", auth: Roles.escalations, body: s.CreateEscalationChannelBody, response: s.EscalationChannelSchema, status: 201,
    summary: "Add an escalation channel: a signed JSON webhook (secret required) or a Slack-compatible incoming webhook",
  },
  deactivateEscalationChannel: {
    method: "DELETE", path: "/api/escalation-channels/{id}", auth: Roles.escalations, params: s.EscalationChannelParams, response: s.EscalationChannelSchema,
    summary: "Deactivate an escalation channel (its delivery log is kept; pending deliveries to it are failed)",
  },
  sendEscalationTest: {
    method: "POST", path: "/api/escalation-channels/{id}/test", auth: Roles.escalations, params: s.EscalationChannelParams, response: s.EscalationTestSchema, status: 202,
    summary: "Send a test message to a channel through the deliverer (signed, retried, logged as a delivery of kind test); its result counts in the channel's health",
  },
  listEscalations: {
    method: "GET", path: "/api/escalations", auth: Roles.oversight, query: s.ListEscalationsQuery, response: s.EscalationDeliveryListSchema,
    summary: "The escalation delivery log, newest first: every escalation and close-out per channel with its attempts; filter by review item, task, channel, status, kind",
  },
  listDemoServices: {
    method: "GET", path: "/api/demo/services", auth: ["admin"], response: s.DemoServiceListSchema,
    summary: "List the demo services with their fault controls in force and the ones each acts on; 503 when the demo services are not running",
  },
  getDemoFaults: {
    method: "GET", path: "/api/demo/services/{service}/faults", auth: ["admin"], params: s.DemoServiceParams, response: s.DemoServiceFaultsSchema,
    summary: "Read a demo service's fault controls in force (a call's own X-Demo-Faults header overrides them)",
  },
  setDemoFaults: {
    method: "POST", path: "/api/demo/services/{service}/faults", auth: ["admin"], params: s.DemoServiceParams, body: s.DemoFaultsSchema, response: s.DemoServiceFaultsSchema,
    summary: "Set a demo service's fault controls (replaces them; {} clears them) for every later call without its own X-Demo-Faults header",
  },
  demoWitness: {
    method: "GET", path: "/api/demo/services/{service}/witness", auth: ["admin"], params: s.DemoServiceParams, query: s.DemoWitnessQuery, response: s.DemoWitnessSchema,
    summary: "Read a demo service's witness log (what it really did), oldest first; afterSeq for polling, limit keeps the most recent",
  },
  audit: {
    method: "GET", path: "/api/audit", auth: ALL, query: s.AuditQuery, response: s.AuditReportSchema,
    summary: "What the agent actually changed: external effects with evidence, decisions, compensations and open uncertainty; filter by user (account e-mail or id), ownerId, conversationId, taskId, tool, from/to; format=csv|json downloads the same as a file",
  },
} as const satisfies Record<string, RouteContract>;

export type Contract = typeof contract;
