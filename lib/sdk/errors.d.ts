/**
 * The SDK's closed error hierarchy. Every failure a StoplineClient call can end with is a StoplineError:
 * the API's error codes (lib/errors.ts) map to the subclasses below; failures on the way (no connection, a
 * timeout, a response that breaks the contract) have SDK codes of their own and `status` null or the HTTP
 * status that came back.
 *
 * A user's AbortSignal is the one exception: an aborted call rejects with the signal's reason, as fetch does.
 */
/** Codes the SDK itself produces (the API's codes are in lib/errors.ts `ErrorCode`). */
export declare const SdkErrorCode: {
    /** No HTTP response: connection refused or reset, DNS failure… (after the retries the call allows). */
    readonly networkError: "network_error";
    /** No response within the client's per-attempt timeout. */
    readonly timeout: "timeout";
    /** A response arrived but does not match the contract's schema (or is not JSON / not an event stream). */
    readonly invalidResponse: "invalid_response";
    /** The feature has no HTTP route yet (see ctx.holdResource in worker.ts). */
    readonly notSupported: "not_supported";
    /** An error status whose body is not the API's error shape (a proxy's 502 page, …). */
    readonly httpError: "http_error";
};
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
export declare class StoplineError extends Error {
    name: string;
    /** The HTTP status, or null when no response arrived (network error, timeout). */
    readonly status: number | null;
    /** The API's error code (`ErrorCode` in lib/errors.ts) or one of `SdkErrorCode`. */
    readonly code: string;
    /** What the server said was wrong, in terms the caller can act on (current state, versions, …). */
    readonly details: Record<string, unknown>;
    readonly route: string | undefined;
    attempts: number;
    constructor(message: string, init: StoplineErrorInit);
}
/** `cancel_requested`: the task's cancellation boundary exists — nothing new may start or commit. Stop. */
export declare class CancelledError extends StoplineError {
    name: string;
}
/** `stale_intent`: the work was prepared under an older intent or proposal version than the task's current one. */
export declare class StaleIntentError extends StoplineError {
    name: string;
}
/** `stale_lease`: this lease token is no longer the work item's current one (the lease expired or was taken over). */
export declare class StaleLeaseError extends StoplineError {
    name: string;
}
export declare class NotFoundError extends StoplineError {
    name: string;
}
/** `conflict` or `illegal_transition`: a compare-and-set found another state than expected (see details). */
export declare class ConflictError extends StoplineError {
    name: string;
}
export declare class UnauthorizedError extends StoplineError {
    name: string;
}
export declare class ForbiddenError extends StoplineError {
    name: string;
}
/** 400: the request was refused as invalid; `issues` lists each field and what is wrong with it. */
export declare class ValidationError extends StoplineError {
    name: string;
    readonly issues: ValidationIssue[];
    constructor(message: string, init: StoplineErrorInit & {
        issues: ValidationIssue[];
    });
}
/** No response (network_error) or none in time (timeout). */
export declare class NetworkError extends StoplineError {
    name: string;
}
/** The server answered, but not with what the contract promises. Never retried. */
export declare class InvalidResponseError extends StoplineError {
    name: string;
}
export declare const isStoplineError: (e: unknown) => e is StoplineError;
/** Builds the typed error for an error response (status ≥ 400) from its status and body text. */
export declare function errorFromBody(status: number, text: string, route: string): StoplineError;
/** The one mapping from an API error code (or, failing that, the HTTP status) to an error class. */
export declare function errorFor(status: number | null, code: string, message: string, extra?: {
    route?: string;
    details?: Record<string, unknown>;
    issues?: ValidationIssue[];
    attempts?: number;
}): StoplineError;
