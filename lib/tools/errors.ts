/**
 * The two errors a running call's code and its runner share — one definition for the server's runner, the SDK's
 * worker and the AI SDK wrapper (issue 21 item 3). They are matched by a brand (`Symbol.for`), not by class identity:
 * a tool bundled with its own copy of the SDK, or the SDK's `CancelledError` (a StoplineError for the API's
 * `cancel_requested`), is still `instanceof` these.
 */
const STOPPED = Symbol.for("stopline.error.stopped");
const CANCELLED = Symbol.for("stopline.error.cancelled");

const hasBrand = (value: unknown, brand: symbol) => typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;

/**
 * The call was told to stop (the task's Stop was recorded, the engine is stopping the step, or the checkpoint
 * refused the commitment). Says nothing about what a remote service did.
 */
export class CancelledError extends Error {
  override readonly name: string = "CancelledError";
  readonly [CANCELLED] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass keeps ordinary instanceof; only the base is matched by brand (`this` is the class instanceof asks).
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof, a subclass included
    return this === CancelledError ? hasBrand(value, CANCELLED) : Function.prototype[Symbol.hasInstance].call(this, value);
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
    return this === StoppedError ? hasBrand(value, STOPPED) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** Marks another class's instances as CancelledError too (the SDK's `CancelledError`, a StoplineError). */
export const CANCELLED_BRAND: typeof CANCELLED = CANCELLED;
