import { describe, expect, it } from "vitest";
import { AppError, CancelledError, ErrorCode, isCheckpointRefusal, StoppedError } from "../../lib/errors";
import { errorResponse } from "../../lib/api/http-errors";
import { IllegalTransitionError } from "../../lib/ledger/errors";
import { CancelledError as SdkCancelledError, ConflictError, errorFromBody, NetworkError, StoplineError } from "../../lib/sdk/errors";

/** Issue 21 item 3: one error hierarchy — the server's failures and the SDK's are one kind, mapped to HTTP in one place. */
describe("one error hierarchy for server and SDK", () => {
  it("an SDK error is an AppError carrying the server's code and details", () => {
    const fromServer = errorFromBody(
      409,
      JSON.stringify({ error: { code: "illegal_transition", message: "no", details: { currentState: "completed" } } }),
      "POST /x",
    );
    expect(fromServer).toBeInstanceOf(ConflictError);
    expect(fromServer).toBeInstanceOf(StoplineError);
    expect(fromServer).toBeInstanceOf(AppError);
    expect(fromServer).toMatchObject({ code: ErrorCode.illegalTransition, status: 409, details: { currentState: "completed" }, name: "ConflictError" });
  });

  it("a code this SDK does not know is an http_error that keeps the server's code, not a bare string", () => {
    const error = errorFromBody(409, JSON.stringify({ error: { code: "brand_new_code", message: "newer server" } }), "POST /x");
    expect(error).toBeInstanceOf(ConflictError); // the status still says what kind
    expect(error).toMatchObject({ code: "http_error", message: "newer server", details: { serverCode: "brand_new_code" } });
  });

  it("the checkpoint's refusal is a CancelledError whichever side raised it", () => {
    const server = new AppError(ErrorCode.cancelRequested, "the task's cancellation was requested");
    const sdk = errorFromBody(409, JSON.stringify({ error: { code: "cancel_requested", message: "stop" } }), "POST /x");
    expect(server).toBeInstanceOf(CancelledError);
    expect(sdk).toBeInstanceOf(SdkCancelledError);
    expect(sdk).toBeInstanceOf(CancelledError);
    expect(new AppError(ErrorCode.conflict, "x")).not.toBeInstanceOf(CancelledError);
    expect(new IllegalTransitionError("task", "completed", "running")).not.toBeInstanceOf(CancelledError);
    expect(new StoppedError("x")).not.toBeInstanceOf(AppError);
  });

  it("isCheckpointRefusal: the ledger's own cancel_requested, not the run's abort reason", () => {
    const abortReason = new SdkCancelledError("the heartbeat reported a Stop", { status: null, code: ErrorCode.cancelRequested });
    expect(isCheckpointRefusal(abortReason, abortReason)).toBe(false);
    expect(isCheckpointRefusal(new AppError(ErrorCode.cancelRequested, "refused"), abortReason)).toBe(true);
    expect(isCheckpointRefusal(new SdkCancelledError("refused", { status: 409, code: ErrorCode.cancelRequested }), abortReason)).toBe(true);
    expect(isCheckpointRefusal(new CancelledError("aborted"), undefined)).toBe(false); // told to stop, not refused
    expect(isCheckpointRefusal(new AppError(ErrorCode.staleLease, "x"), undefined)).toBe(false);
  });

  it("an SDK failure reaching a route is a dependency's failure (502/504), never a 500 or the caller's fault", async () => {
    const down = new NetworkError("connect ECONNREFUSED", { status: null, code: "network_error" });
    const slow = new NetworkError("no answer in 10 s", { status: null, code: "timeout" });
    expect(errorResponse(down).status).toBe(502);
    expect(errorResponse(slow).status).toBe(504);
    expect(await errorResponse(down).json()).toEqual({ error: { code: "network_error", message: "connect ECONNREFUSED", details: {} } });
  });

  it("an unhandled error answers with the catalogue's internal code", async () => {
    const original = console.error;
    console.error = () => {};
    try {
      const response = errorResponse(new Error("boom"));
      expect(response.status).toBe(500);
      expect((await response.json()).error.code).toBe(ErrorCode.internal);
    } finally {
      console.error = original;
    }
  });
});
