import { ErrorCode } from "../errors";
import { ErrorSchema } from "../api/schemas";
import { CANCELLED_BRAND } from "../tools/errors";

/**
 * The SDK's closed error hierarchy. Every failure a StoplineClient call can end with is a StoplineError:
 * the API's error codes (lib/errors.ts) map to the subclasses below; failures on the way (no connection, a
 * timeout, a response that breaks the contract) have SDK codes of their own and `status` null or the HTTP
 * status that came back.
 *
 * A user's AbortSignal is the one exception: an aborted call rejects with the signal's reason, as fetch does.
 */

/** Codes the SDK itself produces (the API's codes are in lib/errors.ts `ErrorCode`). */
export const SdkErrorCode = {
  /** No HTTP response: connection refused or reset, DNS failure… (after the retries the call allows). */
  networkError: "network_error",
  /** No response within the client's per-attempt timeout. */
  timeout: "timeout",
  /** A response arrived but does not match the contract's schema (or is not JSON / not an event stream). */
  invalidResponse: "invalid_response",
  /** The feature has no HTTP route yet (see ctx.holdResource in worker.ts). */
  notSupported: "not_supported",
  /** An error status whose body is not the API's error shape (a proxy's 502 page, …). */
  httpError: "http_error",
} as const;
export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode];

export interface ValidationIssue {
  field: string;
  message: string;
}

export interface StoplineErrorInit {
  status: number | null;
  code: string;
  details?: Record<string, unknown>;
  /** "POST /api/tasks/{taskId}/cancel" — the contract route the call was for. */
  route?: string;
  /** How many HTTP attempts were made (1 without retries). */
  attempts?: number;
  cause?: unknown;
}

export class StoplineError extends Error {
  override name = "StoplineError";
  /** The HTTP status, or null when no response arrived (network error, timeout). */
  readonly status: number | null;
  /** The API's error code (`ErrorCode` in lib/errors.ts) or one of `SdkErrorCode`. */
  readonly code: string;
  /** What the server said was wrong, in terms the caller can act on (current state, versions, …). */
  readonly details: Record<string, unknown>;
  readonly route: string | undefined;
  attempts: number;

  constructor(message: string, init: StoplineErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.route = init.route;
    this.attempts = init.attempts ?? 1;
  }
}

/**
 * `cancel_requested`: the task's cancellation boundary exists — nothing new may start or commit. Stop. Also
 * `instanceof` the tool contract's CancelledError (lib/tools/errors.ts): one kind of error, whichever side raised it.
 */
export class CancelledError extends StoplineError {
  override name = "CancelledError";
  readonly [CANCELLED_BRAND] = true;
}
/** `stale_intent`: the work was prepared under an older intent or proposal version than the task's current one. */
export class StaleIntentError extends StoplineError {
  override name = "StaleIntentError";
}
/** `stale_lease`: this lease token is no longer the work item's current one (the lease expired or was taken over). */
export class StaleLeaseError extends StoplineError {
  override name = "StaleLeaseError";
}
export class NotFoundError extends StoplineError {
  override name = "NotFoundError";
}
/** `conflict` or `illegal_transition`: a compare-and-set found another state than expected (see details). */
export class ConflictError extends StoplineError {
  override name = "ConflictError";
}
export class UnauthorizedError extends StoplineError {
  override name = "UnauthorizedError";
}
export class ForbiddenError extends StoplineError {
  override name = "ForbiddenError";
}
/** 400: the request was refused as invalid; `issues` lists each field and what is wrong with it. */
export class ValidationError extends StoplineError {
  override name = "ValidationError";
  readonly issues: ValidationIssue[];
  constructor(message: string, init: StoplineErrorInit & { issues: ValidationIssue[] }) {
    super(message, init);
    this.issues = init.issues;
  }
}
/** No response (network_error) or none in time (timeout). */
export class NetworkError extends StoplineError {
  override name = "NetworkError";
}
/** The server answered, but not with what the contract promises. Never retried. */
export class InvalidResponseError extends StoplineError {
  override name = "InvalidResponseError";
}

export const isStoplineError = (e: unknown): e is StoplineError => e instanceof StoplineError;

/** Builds the typed error for an error response (status ≥ 400) from its status and body text. */
export function errorFromBody(status: number, text: string, route: string): StoplineError {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const parsed = ErrorSchema.safeParse(body);
  if (!parsed.success) {
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    return errorFor(status, SdkErrorCode.httpError, `${route} answered ${status}${snippet ? `: ${snippet}` : ""}`, { route, details: {} });
  }
  const { code, message, details = {}, issues } = parsed.data.error;
  return errorFor(status, code, message, { route, details, issues });
}

/** The one mapping from an API error code (or, failing that, the HTTP status) to an error class. */
export function errorFor(
  status: number | null,
  code: string,
  message: string,
  extra: { route?: string; details?: Record<string, unknown>; issues?: ValidationIssue[]; attempts?: number } = {},
): StoplineError {
  const init: StoplineErrorInit = { status, code, details: extra.details, route: extra.route, attempts: extra.attempts };
  switch (code) {
    case ErrorCode.cancelRequested:
      return new CancelledError(message, init);
    case ErrorCode.staleIntent:
      return new StaleIntentError(message, init);
    case ErrorCode.staleLease:
      return new StaleLeaseError(message, init);
    case ErrorCode.notFound:
      return new NotFoundError(message, init);
    case ErrorCode.conflict:
    case ErrorCode.illegalTransition:
      return new ConflictError(message, init);
    case ErrorCode.unauthorized:
      return new UnauthorizedError(message, init);
    case ErrorCode.forbidden:
      return new ForbiddenError(message, init);
    case ErrorCode.badRequest:
      return new ValidationError(message, { ...init, issues: extra.issues ?? issuesFromDetails(extra.details, message) });
  }
  switch (status) {
    case 400:
      return new ValidationError(message, { ...init, issues: extra.issues ?? issuesFromDetails(extra.details, message) });
    case 401:
      return new UnauthorizedError(message, init);
    case 403:
      return new ForbiddenError(message, init);
    case 404:
      return new NotFoundError(message, init);
    case 409:
      return new ConflictError(message, init);
  }
  return new StoplineError(message, init);
}

/** A domain 400 names its field in details.field (lib/errors.ts); a zod 400 lists issues itself. */
function issuesFromDetails(details: Record<string, unknown> | undefined, message: string): ValidationIssue[] {
  const field = details?.field;
  return typeof field === "string" ? [{ field, message }] : [];
}
