import { AppError, CANCELLED_BRAND, ErrorCode, type FailureCode, isErrorCode, SdkErrorCode } from "../errors";
import { ErrorSchema } from "../api/schemas";

/**
 * The SDK's closed error hierarchy, part of Stopline's one (lib/errors.ts): a StoplineError IS an AppError, with the
 * same codes and details the server threw, plus what the call saw (HTTP status, route, attempts). Every failure a
 * StoplineClient call can end with is a StoplineError: the API's error codes map to the subclasses below; failures on
 * the way (no connection, a timeout, a response that breaks the contract) have SDK codes (`SdkErrorCode`) and
 * `status` null or the HTTP status that came back.
 *
 * A user's AbortSignal is the one exception: an aborted call rejects with the signal's reason, as fetch does.
 */

export { SdkErrorCode };

export interface ValidationIssue {
  field: string;
  message: string;
}

export interface StoplineErrorInit {
  status: number | null;
  code: FailureCode;
  details?: Record<string, unknown>;
  /** "POST /api/tasks/{taskId}/cancel" — the contract route the call was for. */
  route?: string;
  /** How many HTTP attempts were made (1 without retries). */
  attempts?: number;
  cause?: unknown;
}

/**
 * `code` is the API's error code (`ErrorCode`) or one of `SdkErrorCode`; `details` is what the server said was wrong,
 * in terms the caller can act on (current state, versions, …).
 */
export class StoplineError extends AppError {
  override readonly name: string = "StoplineError";
  /** The HTTP status, or null when no response arrived (network error, timeout). */
  readonly status: number | null;
  readonly route: string | undefined;
  attempts: number;

  constructor(message: string, init: StoplineErrorInit) {
    super(init.code, message, init.details ?? {}, { cause: init.cause });
    this.status = init.status;
    this.route = init.route;
    this.attempts = init.attempts ?? 1;
  }
}

/**
 * `cancel_requested`: the task's cancellation boundary exists — nothing new may start or commit. Stop. Also
 * `instanceof` the tool contract's CancelledError (lib/errors.ts): one kind of error, whichever side raised it.
 */
export class CancelledError extends StoplineError {
  override readonly name: string = "CancelledError";
  readonly [CANCELLED_BRAND] = true;
}
/** `stale_intent`: the work was prepared under an older intent or proposal version than the task's current one. */
export class StaleIntentError extends StoplineError {
  override readonly name: string = "StaleIntentError";
}
/** `stale_lease`: this lease token is no longer the work item's current one (the lease expired or was taken over). */
export class StaleLeaseError extends StoplineError {
  override readonly name: string = "StaleLeaseError";
}
export class NotFoundError extends StoplineError {
  override readonly name: string = "NotFoundError";
}
/** `conflict` or `illegal_transition`: a compare-and-set found another state than expected (see details). */
export class ConflictError extends StoplineError {
  override readonly name: string = "ConflictError";
}
export class UnauthorizedError extends StoplineError {
  override readonly name: string = "UnauthorizedError";
}
export class ForbiddenError extends StoplineError {
  override readonly name: string = "ForbiddenError";
}
/** 400: the request was refused as invalid; `issues` lists each field and what is wrong with it. */
export class ValidationError extends StoplineError {
  override readonly name: string = "ValidationError";
  readonly issues: ValidationIssue[];
  constructor(message: string, init: StoplineErrorInit & { issues: ValidationIssue[] }) {
    super(message, init);
    this.issues = init.issues;
  }
}
/** No response (network_error) or none in time (timeout). */
export class NetworkError extends StoplineError {
  override readonly name: string = "NetworkError";
}
/** The server answered, but not with what the contract promises. Never retried. */
export class InvalidResponseError extends StoplineError {
  override readonly name: string = "InvalidResponseError";
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
  // A code this SDK does not know (a newer server) keeps its status mapping; the server's code stays in details.
  if (!isErrorCode(code)) return errorFor(status, SdkErrorCode.httpError, message, { route, details: { ...details, serverCode: code }, issues });
  return errorFor(status, code, message, { route, details, issues });
}

/** The one mapping from an API error code (or, failing that, the HTTP status) to an error class. */
export function errorFor(
  status: number | null,
  code: FailureCode,
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
