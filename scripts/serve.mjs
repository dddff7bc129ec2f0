// The production server that `npm start` and the test harnesses run: Next.js in
// this process, behind a plain node:http server that first offers each request to
// the fast path for the hot routes (the worker's task loop, memory search:
// lib/api/fast-path.ts, installed on globalThis by instrumentation.ts once Next has
// loaded it; a request before that goes to Next, which calls the same handlers).
// Usage: node scripts/serve.mjs --port N [--hostname H]
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

process.env.NODE_ENV = "production";
const { default: next } = await import("next");

const ROOT = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { port: { type: "string", default: "3000" }, hostname: { type: "string" } } });
const port = Number(values.port);
const hostname = values.hostname;

const app = next({ dev: false, dir: ROOT, port, hostname });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const fastPath = globalThis.swarmdeckFastPath;
  if (fastPath?.(req, res)) return;
  handle(req, res);
});
// Idle keep-alive connections stay open longer than Node's 5 s default (and than the
// usual proxy timeouts), so workers polling in a loop keep reusing their connections.
server.keepAliveTimeout = 65_000;
server.on("error", (error) => {
  console.error(`Could not listen on port ${port}: ${error.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  const shown = !hostname || hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  console.log(`▲ Ready on http://${shown}:${port}`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    app.close().finally(() => process.exit(0));
  });
}
