/**
 * The one error type the domain throws. `code` decides the HTTP status (lib/api/http-errors.ts, the only
 * mapping); `details` says what was wrong in terms the caller can act on.
 */
export declare const ErrorCode: {
    readonly badRequest: "bad_request";
    readonly unauthorized: "unauthorized";
    readonly forbidden: "forbidden";
    readonly notFound: "not_found";
    /** A compare-and-set found another state than expected (the current one is in details). */
    readonly conflict: "conflict";
    readonly illegalTransition: "illegal_transition";
    /** The task's cancellation boundary exists: nothing new may start or commit. */
    readonly cancelRequested: "cancel_requested";
    /** An incident's kill switch quarantines the tool or token (details: the incident and its reason). */
    readonly quarantined: "quarantined";
    /** The work item was prepared under an older intent or proposal version. */
    readonly staleIntent: "stale_intent";
    /** The caller's lease token is not (or no longer) the item's current one. */
    readonly staleLease: "stale_lease";
    /** The request body is larger than the API accepts. */
    readonly payloadTooLarge: "payload_too_large";
    /** The database (or another dependency) cannot answer now; `details.retryAfterSeconds` becomes Retry-After. */
    readonly unavailable: "unavailable";
    /** A limit was reached (open event streams, failed sign-ins); `details.retryAfterSeconds` becomes Retry-After. */
    readonly tooManyRequests: "too_many_requests";
};
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
export declare class AppError extends Error {
    readonly code: ErrorCode;
    readonly details: Record<string, unknown>;
    readonly name = "AppError";
    constructor(code: ErrorCode, message: string, details?: Record<string, unknown>);
}
export declare const isAppError: (e: unknown) => e is AppError;
