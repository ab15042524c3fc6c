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

/**
 * Marks an AppError whichever copy of this module made it: the server runs the route handlers from Next.js's
 * bundle and its own lanes from the source (scripts/start/serve.ts), so one process holds two AppError classes.
 * Without the mark, a 429 thrown by the bundle's copy reached the lane's error mapping as an unknown error: a 500.
 */
const APP_ERROR: unique symbol = Symbol.for("stopline.AppError");

export class AppError extends Error {
  /** `instanceof AppError` holds for an AppError of any copy of this module (subclasses check as usual). */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== AppError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as { [APP_ERROR]?: unknown })[APP_ERROR] === true;
  }
  readonly [APP_ERROR] = true;
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
