import path from "node:path";
import { defineConfig } from "vitest/config";

// Three projects: pure unit tests, integration on SQLite, integration on PostgreSQL.
// Every test lives in test/ (mirroring the tree; route handlers' in app/api/__tests__/). Integration tests are
// *.int.test.ts and run once per database (STOPLINE_TEST_DB tells them which).
const alias = { "@": path.resolve(import.meta.dirname) };
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["test/**/*.test.ts", "app/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "sqlite",
          include: ["**/*.int.test.ts"],
          exclude: ["node_modules/**"],
          environment: "node",
          env: { STOPLINE_TEST_DB: "sqlite" },
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: true,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "postgres",
          include: ["**/*.int.test.ts"],
          exclude: ["node_modules/**"],
          environment: "node",
          env: { STOPLINE_TEST_DB: "postgres" },
          testTimeout: 30_000,
          hookTimeout: 60_000,
          fileParallelism: true,
        },
      },
    ],
  },
});
