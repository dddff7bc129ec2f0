// One real server (production build, temporary database) for the browser tests.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer } from "../../tests/support/test-server";

export const SERVER_INFO_FILE = path.join(import.meta.dirname, "..", "..", "test-results", "e2e-server.json");

export default async function globalSetup() {
  const server = await startTestServer();
  process.env.SWARMDECK_E2E_BASE_URL = server.baseUrl;
  process.env.SWARMDECK_E2E_SERVER = JSON.stringify({ ...server, stop: undefined });
  writeFileSync(path.join(server.dataDir, "server.json"), JSON.stringify({ ...server, stop: undefined }));
  return () => server.stop();
}
