import { describe, expect, it, vi } from "vitest";
import { AppError, ErrorCode } from "../../../lib/errors";
import { IllegalTransitionError } from "../../../lib/ledger/errors";
import { errorResponse } from "../../../lib/api/http-errors";

/**
 * `npm start`'s server holds two copies of lib/errors.ts: the route handlers' (Next.js's bundle) and its own lanes'
 * (scripts/start/serve.ts runs the source). A 429 thrown by one copy and mapped by the other was a 500 (issue 24:
 * 150 event streams of one person → 118 × 500).
 */
async function otherCopyOfErrors(): Promise<typeof import("../../../lib/errors")> {
  vi.resetModules();
  const copy = await import("../../../lib/errors");
  vi.resetModules();
  return copy;
}

describe("errorResponse", () => {
  it("maps an AppError made by another copy of the module like its own: 429 with Retry-After and a JSON body, never a 500", async () => {
    const other = await otherCopyOfErrors();
    expect(other.AppError).not.toBe(AppError); // really another class
    const error = new other.AppError(other.ErrorCode.tooManyRequests, "you already have 32 open event streams", { limit: 32, retryAfterSeconds: 10 });
    expect(error instanceof AppError).toBe(true);
    const response = errorResponse(error);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("10");
    expect(await response.json()).toEqual({
      error: { code: "too_many_requests", message: "you already have 32 open event streams", details: { limit: 32, retryAfterSeconds: 10 } },
    });
  });

  it("a subclass still checks as itself: an AppError is not an IllegalTransitionError", () => {
    expect(new AppError(ErrorCode.conflict, "x") instanceof IllegalTransitionError).toBe(false);
    expect(new Error("x") instanceof AppError).toBe(false);
    expect({ code: "conflict" } instanceof AppError).toBe(false);
  });
});
