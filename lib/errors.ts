/**
 * The one error type the domain throws. `code` decides the HTTP status (lib/api/http-errors.ts, the only
 * mapping); `details` says what was wrong in terms the caller can act on.
 */
export const ErrorCode = {
  badRequest: "bad_request",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  notFound: "not_found",
  /** A compare-and-set found another state than expected (the current one is in details). */
  conflict: "conflict",
  illegalTransition: "illegal_transition",
  /** The task's cancellation boundary exists: nothing new may start or commit. */
  cancelRequested: "cancel_requested",
  /** An incident's kill switch quarantines the tool or token (details: the incident and its reason). */
  quarantined: "quarantined",
  /** The work item was prepared under an older intent or proposal version. */
  staleIntent: "stale_intent",
  /** The caller's lease token is not (or no longer) the item's current one. */
  staleLease: "stale_lease",
  /** The request body is larger than the API accepts. */
  payloadTooLarge: "payload_too_large",
  /** The database (or another dependency) cannot answer now; `details.retryAfterSeconds` becomes Retry-After. */
  unavailable: "unavailable",
  /** A limit was reached (open event streams, failed sign-ins); `details.retryAfterSeconds` becomes Retry-After. */
  tooManyRequests: "too_many_requests",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
