/**
 * Every failure Stopline defines, in one place (issue 21 item 3) — for the server, the SDK's client, its worker and
 * the AI SDK wrapper alike. SDK-safe: imports nothing.
 *
 *   Error
 *   ├─ AppError            a failure with a code: the server's domain errors (mapped to HTTP in lib/api/http-errors.ts,
 *   │  │                   the only mapping) and, as StoplineError (lib/sdk/errors.ts), what an SDK call ended with
 *   │  ├─ IllegalTransitionError (lib/ledger/errors.ts)
 *   │  └─ StoplineError → CancelledError, StaleIntentError, StaleLeaseError, NotFoundError, ConflictError, … (SDK)
 *   ├─ CancelledError      the call was told to stop (tool contract) — also every AppError whose code is cancel_requested
 *   └─ StoppedError        the service confirmed the call stopped for good (tool contract)
 *
 * The classes are matched by brand (`Symbol.for`), not identity: the server runs route handlers from Next.js's bundle
 * and its own lanes from source, and a tool may bundle its own copy of the SDK — one kind of error, whichever copy made it.
 */

/** The API's error codes: what the server answers (`{ error: { code, message, details } }`). */
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
  /** What was asked for existed but has left the ledger: archived by the retention policy (details say when and where). */
  gone: "gone",
  /** A bug or an unexpected failure on the server (its log has the details). */
  internal: "internal",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Codes a client produces itself, when no API answer says what went wrong (the SDK's StoplineError). */
export const SdkErrorCode = {
  /** No HTTP response: connection refused or reset, DNS failure… (after the retries the call allows). */
  networkError: "network_error",
  /** No response within the client's per-attempt timeout. */
  timeout: "timeout",
  /** A response arrived but does not match the contract's schema (or is not JSON / not an event stream). */
  invalidResponse: "invalid_response",
  /** The feature has no HTTP route yet (see ctx.holdResource in lib/sdk/worker.ts). */
  notSupported: "not_supported",
  /** An error status whose body is not the API's error shape (a proxy's 502 page, a code this SDK does not know, …). */
  httpError: "http_error",
} as const;
export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode];

/** Every code an AppError can carry. */
export type FailureCode = ErrorCode | SdkErrorCode;

const API_CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === "string" && API_CODES.has(code);

const APP_ERROR: unique symbol = Symbol.for("stopline.AppError");
const STOPPED: unique symbol = Symbol.for("stopline.error.stopped");
const CANCELLED: unique symbol = Symbol.for("stopline.error.cancelled");

const hasBrand = (value: unknown, brand: symbol) => typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;

/**
 * `instanceof` for a branded base class: the base itself matches by brand (any copy of this module), a subclass
 * keeps ordinary instanceof. `cls` is the class on the right of instanceof.
 */
const matchesBrand = (base: abstract new (...args: never[]) => unknown, cls: unknown, value: unknown, brand: symbol) =>
  cls === base ? hasBrand(value, brand) : Function.prototype[Symbol.hasInstance].call(cls, value);

/** A failure with a code. `code` decides the HTTP status; `details` says what was wrong in terms the caller can act on. */
export class AppError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof, a subclass included
    return matchesBrand(AppError, this, value, APP_ERROR);
  }
  readonly [APP_ERROR] = true;
  override readonly name: string = "AppError";
  constructor(
    readonly code: FailureCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // The checkpoint's refusal is a CancelledError for a tool whichever runner it runs in (the server's, the SDK's).
    if (code === ErrorCode.cancelRequested) (this as unknown as Record<symbol, boolean>)[CANCELLED] = true;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * The call was told to stop (the task's Stop was recorded, the engine is stopping the step, or the checkpoint
 * refused the commitment). Says nothing about what a remote service did.
 */
export class CancelledError extends Error {
  override readonly name: string = "CancelledError";
  readonly [CANCELLED] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof, a subclass included
    return matchesBrand(CancelledError, this, value, CANCELLED);
  }
}

/**
 * Thrown by a tool's run() when it KNOWS the call stopped for good: the service confirmed the cancellation (an
 * export that answered "cancelled", a job in a terminal cancelled state). Without it, a provider-side or rollback
 * tool that stops after a Stop is only known to have stopped WAITING — the engine then cancels and inspects it
 * before anything is reported.
 */
export class StoppedError extends Error {
  override readonly name: string = "StoppedError";
  readonly [STOPPED] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof, a subclass included
    return matchesBrand(StoppedError, this, value, STOPPED);
  }
}

/** Marks another class's instances as CancelledError too (the SDK's `CancelledError`, a StoplineError). */
export const CANCELLED_BRAND: typeof CANCELLED = CANCELLED;

/**
 * The checkpoint refused the commitment after the Stop — nothing was sent (the ledger's own cancel_requested, not the
 * run's abort reason, which is a CancelledError too). The run-ending rule's `refusedAtCheckpoint`, for every runner.
 */
export const isCheckpointRefusal = (error: unknown, abortReason: unknown): boolean =>
  error !== abortReason && error instanceof AppError && error.code === ErrorCode.cancelRequested;
