import { ZodError } from "zod";
import { AppError, ErrorCode, type FailureCode } from "../errors";
import { asUnavailable } from "../db/unavailable";

/**
 * The one mapping from error codes to HTTP statuses. The SDK's own codes are a dependency's failure when the server
 * itself made an SDK call (the MCP gateway, the demo agent): a bad gateway, not the caller's fault.
 */
const STATUS: Record<FailureCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  illegal_transition: 409,
  cancel_requested: 409,
  quarantined: 409,
  stale_intent: 409,
  stale_lease: 409,
  payload_too_large: 413,
  unavailable: 503,
  too_many_requests: 429,
  gone: 410,
  internal: 500,
  network_error: 502,
  timeout: 504,
  invalid_response: 502,
  http_error: 502,
  not_supported: 501,
};

/** 429 and 503 say when to come back (details.retryAfterSeconds, at least 1). */
function retryHeaders(error: AppError): HeadersInit | undefined {
  if (error.code !== ErrorCode.unavailable && error.code !== ErrorCode.tooManyRequests) return undefined;
  const s = Number(error.details.retryAfterSeconds);
  return { "Retry-After": String(Number.isFinite(s) && s > 0 ? Math.max(1, Math.ceil(s)) : 1) };
}

export const statusOf = (code: FailureCode) => STATUS[code];

export function errorResponse(error: unknown): Response {
  if (error instanceof ZodError) {
    const issues = error.issues.map((i) => ({ field: i.path.join(".") || "(body)", message: i.message }));
    const summary = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
    return Response.json({ error: { code: ErrorCode.badRequest, message: `invalid request — ${summary}`, issues } }, { status: 400 });
  }
  // The database being down, unreachable or locked is not the request's fault, nor a bug: 503 + Retry-After.
  const unavailable = error instanceof AppError ? null : asUnavailable(error);
  if (unavailable) {
    console.error(
      `database unavailable: ${String((error as Error)?.message ?? error)
        .trim()
        .split("\n")
        .at(-1)}`,
    );
    error = unavailable;
  }
  if (error instanceof AppError) {
    return Response.json(
      { error: { code: error.code, message: error.message, details: error.details } },
      { status: STATUS[error.code], headers: retryHeaders(error) },
    );
  }
  const prismaCode = (error as { code?: unknown })?.code;
  if (prismaCode === "P2002") {
    return Response.json({ error: { code: ErrorCode.conflict, message: "a record with the same unique key already exists" } }, { status: 409 });
  }
  if (prismaCode === "P2025") {
    const model = (error as { meta?: { modelName?: string } }).meta?.modelName;
    return Response.json(
      {
        error: {
          code: ErrorCode.notFound,
          message: `${model ? `the ${model.replace(/[A-Z]/g, (c, i) => (i ? " " : "") + c.toLowerCase())}` : "a record this request needs"} was not found`,
          details: {},
        },
      },
      { status: 404 },
    );
  }
  if (prismaCode === "P2003") {
    return Response.json({ error: { code: ErrorCode.conflict, message: "the request refers to a record that does not exist", details: {} } }, { status: 409 });
  }
  console.error("unhandled error in route", error);
  return Response.json({ error: { code: ErrorCode.internal, message: "internal error (details are in the server log)" } }, { status: 500 });
}
