import { accessSync, constants } from "node:fs";
import path from "node:path";

/**
 * Which Chromium the browser tests and bench:stop-ui launch (playwright.config.ts, bench/stop-ui.ts) — the one
 * `npm test` found or installed (scripts/test/browser.ts), whoever runs them:
 *   1. STOPLINE_CHROMIUM, when set (npm test sets it to what it chose);
 *   2. Debian's Chromium, /usr/bin/chromium;
 *   3. the build from the npm package @sparticuz/chromium that `npm test` unpacked into output/browser/ (when it
 *      could not install Debian's);
 *   otherwise /usr/bin/chromium, and the launch says it does not exist.
 * Playwright's own browser download does not work on these machines: never `npx playwright install`.
 */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";
export const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..");
export const NPM_BROWSER_DIR = path.join(PROJECT_ROOT, "output", "browser");
/** The wrapper script npm test writes: it sets the library path of the unpacked build and runs it. */
export const NPM_CHROMIUM = path.join(NPM_BROWSER_DIR, "chromium");

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STOPLINE_CHROMIUM) return env.STOPLINE_CHROMIUM;
  if (isExecutable(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  if (isExecutable(NPM_CHROMIUM)) return NPM_CHROMIUM;
  return DEBIAN_CHROMIUM;
}

/** Launch arguments for Chromium on these machines (no sandbox as root; no calls to Google's hosts). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
