import { ZodError } from "zod";
import { AppError, ErrorCode } from "../errors";

/** The one mapping from domain error codes to HTTP statuses. */
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  illegal_transition: 409,
  cancel_requested: 409,
  stale_intent: 409,
  stale_lease: 409,
  unavailable: 503,
  too_many_requests: 429,
};

export const statusOf = (code: ErrorCode) => STATUS[code];

export function errorResponse(error: unknown): Response {
  if (error instanceof ZodError) {
    const issues = error.issues.map((i) => ({ field: i.path.join(".") || "(body)", message: i.message }));
    const summary = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
    return Response.json({ error: { code: ErrorCode.badRequest, message: `invalid request — ${summary}`, issues } }, { status: 400 });
  }
  if (error instanceof AppError) {
    const retryAfter = error.details.retryAfterSeconds;
    const headers = typeof retryAfter === "number" ? { "Retry-After": String(Math.max(1, Math.ceil(retryAfter))) } : undefined;
    return Response.json({ error: { code: error.code, message: error.message, details: error.details } }, { status: STATUS[error.code], headers });
  }
  const prismaCode = (error as { code?: unknown })?.code;
  if (prismaCode === "P2002") {
    return Response.json({ error: { code: ErrorCode.conflict, message: "a record with the same unique key already exists" } }, { status: 409 });
  }
  console.error("unhandled error in route", error);
  return Response.json({ error: { code: "internal", message: "internal error (details are in the server log)" } }, { status: 500 });
}
