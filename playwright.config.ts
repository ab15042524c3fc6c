import { defineConfig } from "@playwright/test";
import { E2E_BASE_URL, E2E_BOOTSTRAP_TOKEN, E2E_DATABASE_FILE, E2E_PORT } from "./e2e/env";
import { CHROMIUM_ARGS, chromiumPath } from "./scripts/test/browser-path";

// Tests read the admin token from here (or import E2E_BOOTSTRAP_TOKEN from ./e2e/env). Worker processes
// load this file too, so they see the same value.
process.env.STOPLINE_BOOTSTRAP_TOKEN = E2E_BOOTSTRAP_TOKEN;

/**
 * End-to-end tests against the real `npm start` path (migrate → build if needed → next start) on a fresh
 * SQLite database under output/ and the Chromium `npm test` set up (Debian's, or the one shipped in an npm
 * package; Playwright's own browser download does not work on these machines). Artefacts — screenshots,
 * traces, the HTML report — go to output/ (gitignored).
 */
export default defineConfig({
  testDir: "e2e",
  outputDir: "output/playwright/test-results",
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1, // one server and one database for all tests: keep their order and load predictable
  timeout: 30_000,
  reporter: [["list"], ["html", { outputFolder: "output/playwright/report", open: "never" }]],
  use: {
    baseURL: E2E_BASE_URL,
    browserName: "chromium",
    headless: true,
    screenshot: "on",
    trace: "retain-on-failure",
    // The Chromium `npm test` found or installed (scripts/test/browser-path.ts): STOPLINE_CHROMIUM, Debian's, or the npm package's.
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
  },
  webServer: {
    // A fresh database on every run: delete it (and its WAL files) before the server migrates it anew.
    command: `rm -f output/e2e-${E2E_PORT}*.db* && exec node --import tsx scripts/start.ts`,
    url: `${E2E_BASE_URL}/`,
    reuseExistingServer: false,
    timeout: 300_000, // includes `next build` when the sources changed since the last build
    // start.ts keeps next-server in its own process group and ends it on SIGTERM; Playwright's default
    // (SIGKILL to the shell's group) would leave next-server holding the port.
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(E2E_PORT),
      DATABASE_URL: `file:./${E2E_DATABASE_FILE}`,
      // The demo world's own store, per port too: fault settings of one run never leak into another.
      STOPLINE_DEMO_DB: E2E_DATABASE_FILE.replace(/\.db$/, "-demo.db"),
      STOPLINE_BOOTSTRAP_TOKEN: E2E_BOOTSTRAP_TOKEN,
      // High-risk review items (e.g. approving the reversal of a placed order) escalate 20 s after they open
      // instead of 15 min, so that e2e/escalation.spec.ts sees a real deadline pass. Escalated items stay
      // decidable, so the other specs' decisions are unaffected; low-risk items keep the default 4 h.
      STOPLINE_REVIEW_DEADLINE_HIGH_MS: "20000",
      // e2e/escalation.spec.ts delivers to receivers on 127.0.0.1: internal addresses are refused unless allow-listed.
      STOPLINE_ESCALATION_ALLOWED_HOSTS: "127.0.0.1",
    },
  },
});
