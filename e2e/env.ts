/**
 * Fixed values shared by playwright.config.ts (which starts the server with them) and the tests (which
 * sign in with them). The token is a test value for a throwaway database, not a secret.
 */
export const E2E_PORT = Number(process.env.E2E_PORT || 3100);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
// One database per port, so that two runs on different ports (E2E_PORT) never share one.
export const E2E_DATABASE_FILE = `output/e2e-${E2E_PORT}.db`;
export const E2E_BOOTSTRAP_TOKEN = "stl_e2e_bootstrap_token_for_tests_only";
