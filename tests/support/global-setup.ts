// Vitest global setup for the HTTP tests: one real server for the whole run.
import type { TestProject } from "vitest/node";
import { startTestServer } from "./test-server";

declare module "vitest" {
  export interface ProvidedContext {
    server: {
      baseUrl: string;
      store: "sqlite" | "postgresql";
      databaseUrl: string;
      dbFile: string;
      dataDir: string;
      adminEmail: string;
      adminPassword: string;
      adminToken: string;
    };
  }
}

export default async function setup(project: TestProject) {
  const server = await startTestServer();
  const { stop, kill, pid, ...info } = server;
  project.provide("server", info);
  return stop;
}
