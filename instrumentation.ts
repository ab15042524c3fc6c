// Next.js calls register() once when the server starts: the cancellation engine and the in-process worker
// pool live in the app process on the embedded default (see lib/runtime/background.ts).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs" && process.env.STOPLINE_BACKGROUND !== "0") {
    const { startBackground } = await import("./lib/runtime/background");
    startBackground();
  }
}
