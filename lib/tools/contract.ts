import type { z } from "zod";
import type { Mechanism, RiskLevel, WorkItemKind } from "../ledger/states";

/**
 * The tool contract: what Stopline must know to stop a child the way it can be stopped, find out what it
 * really did, release what it holds and undo what can be undone. Declared once per tool (registry.ts).
 */

/** How the engine refers to one call of a tool when it asks the tool's service about it. */
export interface CallRef {
  workItemId: string;
  taskId: string;
  /** The tool call id (the work item's correlation id). */
  toolCallId: string;
  /** The original request id for rollback and reconciliation: the idempotency key. */
  idempotencyKey: string;
  /** The operation id the external service gave when it accepted the action (null if never submitted). */
  operationId: string | null;
  providerRef: string | null;
  input: unknown;
}

/**
 * What the authoritative service says happened. Never guessed: `unknown` when it cannot say.
 *
 * For a committed effect, `externalVersion` is the version the AGENT'S OWN WRITE produced — what a
 * compensation is bound to (the seeds: "check that the record still has the version the agent's action
 * produced") — and `currentVersion` the record's version now; they differ when someone else changed it since,
 * and `evidence` says who (e.g. { createdVersion, currentVersion, editedBy }). A service that cannot tell the
 * two apart reports only `externalVersion` (then taken as both).
 */
export type InspectOutcome = (
  | {
      status: "committed";
      externalRecordId?: string | null;
      externalVersion?: string | null;
      currentVersion?: string | null;
      evidence?: Record<string, unknown>;
      result?: unknown;
      description?: string;
    }
  | { status: "not_committed"; partialResult?: unknown; partialComplete?: boolean }
  | { status: "running" }
  | { status: "unknown"; reason: string }
) & {
  /**
   * Written ahead: what the service holds for this call NOW, of the kinds the tool declares in `resources` (a lock,
   * a temp file …), by their concrete handles; `[]` when it holds nothing. Required of a tool that declares
   * `resources` (except with status `unknown`): without it the engine cannot tell a call whose answer was lost
   * holds nothing, and reports what it may hold as orphaned for a person.
   */
  holds?: HeldByService[];
};

/** A resource the service holds for a call, as its `inspect()` reports it. */
export interface HeldByService {
  type: string;
  handle: string;
}

export interface ResourceRef {
  id: string;
  workItemId: string;
  type: string;
  handle: string;
}

export interface EffectRef {
  id: string;
  workItemId: string;
  operationId: string;
  externalRecordId: string | null;
  externalVersion: string | null;
  description: string | null;
}

export type CompensationResult =
  | { status: "compensated"; detail?: string }
  /** The external record changed since the agent produced it: nothing was overwritten. */
  | { status: "conflict"; currentVersion: string | null; detail: string }
  | { status: "failed"; detail: string };

export { CancelledError, StoppedError } from "../errors";

/** What the running code gets. Every method records to the ledger before it returns. */
export interface ToolContext {
  /** Fires when the task's cancellation is recorded (in-process: within milliseconds) or the lease is lost. */
  readonly signal: AbortSignal;
  readonly idempotencyKey: string;
  readonly workItemId: string;
  readonly taskId: string;
  readonly toolCallId: string;
  /** W3C trace context of this tool call's span (a worker of the SDK gets it with its claim): send it on as the
   *  `traceparent` header (MCP: `_meta.traceparent`) so that what the service does joins the task's trace. */
  readonly traceparent?: string;
  /**
   * The versioned check right before a commitment. Throws (a CancelledError, or the ledger's
   * cancel_requested / stale_intent AppError) if the task was cancelled or the intent or confirmed proposal
   * moved. Does NOT guarantee that a Stop arriving after it can un-send the action; see submitted().
   */
  checkpoint(): Promise<void>;
  /** Records that the external service accepted the action — call it before waiting for the result. */
  submitted(
    operationId: string,
    details?: { providerRef?: string; externalRecordId?: string; externalVersion?: string; reversible?: boolean; description?: string },
  ): Promise<void>;
  /**
   * Records the concrete handle of a resource the call took (the answer named it). Of a kind declared in the tool's
   * `resources`, it binds the intent written ahead; call it as soon as the answer arrives, before anything else.
   */
  holdResource(type: string, handle: string): Promise<ResourceRef>;
  /** The running code released the resource itself; the engine still verifies it before reporting it released. */
  releaseResource(type: string, handle: string): Promise<void>;
  /** A partial result; `complete: true` vouches that it is a complete, valid subset of the output. */
  reportPartial(result: unknown, options: { complete: boolean }): Promise<void>;
  /**
   * How far the call got ("1200 of 3000 rows"), shown live in the chat and the console. Informational:
   * it changes no state. Reports closer together than a quarter second are coalesced (the latest wins).
   */
  reportProgress(progress: { done: number; total?: number; unit?: string; message?: string }): Promise<void>;
}

export interface ToolDefinition<I = unknown, O = unknown> {
  name: string;
  kind: WorkItemKind;
  risk: RiskLevel;
  /** Does a call have an external effect (create an order, send an email)? Commitments pass a checkpoint. */
  commitsEffect: boolean;
  mechanism: Mechanism;
  /**
   * Written ahead (docs/ARCHITECTURE.md, invariant 4): every kind of resource a call may hold outside — "lock",
   * "temp_file", "mail_draft" … — declared here. Every runner records one intent per kind in the ledger BEFORE
   * run() starts, keyed by the call's idempotency key; `ctx.holdResource(type, handle)` turns it into the concrete
   * handle; a run that returns normally without naming one holds none. When the answer never arrives (a Stop cut the
   * request the service had received, a lost response, a dead worker), the engine asks `inspect()`, which must then
   * report `holds`, and releases and verifies what it names. A kind a tool takes but does not declare is seen only
   * if the answer arrives: declare every kind. Needs `inspect`, `cleanup` and `verifyReleased`.
   */
  resources?: readonly string[];
  /** Validates the input before the call starts (bad input fails the item, it never reaches run). */
  input?: z.ZodType<I>;
  run(input: I, ctx: ToolContext): Promise<O>;
  /** Provider-side cancellation (mechanism provider_cancel). Must be safe to repeat. */
  cancel?(ref: CallRef): Promise<void>;
  /** Ask the authoritative service what really happened, by operation id / idempotency key. Never re-submits. */
  inspect?(ref: CallRef): Promise<InspectOutcome>;
  /** Explicit undo with the original request and tool call ids (mechanism rollback). */
  rollback?(ref: CallRef): Promise<void>;
  cleanup?(resource: ResourceRef): Promise<void>;
  verifyReleased?(resource: ResourceRef): Promise<boolean>;
  /**
   * New work that addresses a completed effect. Must check that the external record still has
   * `expectedVersion` and answer `conflict` instead of overwriting a record someone else changed.
   */
  compensate?(effect: EffectRef, expectedVersion: string | null): Promise<CompensationResult>;
  /** Plain words for a person: "order #123 for 2 chairs (€120)". */
  describeEffect?(effect: EffectRef): string;
}
