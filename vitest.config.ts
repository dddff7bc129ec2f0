import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // Unit tests run lib/ modules outside Next's server bundle.
  "server-only": path.resolve(import.meta.dirname, "tests/support/server-only-stub.ts"),
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "worker/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts"],
          environment: "node",
          setupFiles: ["tests/support/stop-workers.ts"],
          // CI machines are shared and slow: a test that takes 1 s here can take 7 s there.
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "http",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/postgresql/**", "**/node_modules/**"],
          environment: "node",
          globalSetup: ["tests/support/global-setup.ts"],
          setupFiles: ["tests/support/stop-workers.ts", "tests/support/empty-pool.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One server, many files: files run one after another so timings stay calm on 2 cores.
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          // The PostgreSQL store: several app instances on one database, the copy from SQLite (docs/postgresql.md); starts its own servers.
          name: "postgresql",
          include: ["tests/postgresql/**/*.test.ts"],
          environment: "node",
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
