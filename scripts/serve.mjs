// The production server that `npm start` and the test harnesses run: Next.js in
// this process, behind a plain node:http server that first offers each request to
// the fast path for the hot routes (the worker's task loop, memory writes and search:
// lib/api/fast-path.ts, installed on globalThis by instrumentation.ts once Next has
// loaded it; a request before that goes to Next, which calls the same handlers).
// Usage: node scripts/serve.mjs --port N [--hostname H], or `serve()` from
// scripts/start.mjs (which serves in its own process after preparing).
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { giveBackMemoryWhenIdle } from "./idle-memory.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");

// lib/http/client-address.ts reads this header for per-address limits (sign-in
// throttling); it is always overwritten here, so a client cannot choose its address.
const CLIENT_ADDRESS_HEADER = "x-swarmdeck-client-address";

function clientAddress(req, trustProxy) {
  if (trustProxy) {
    // The nearest proxy appends the address it saw last; earlier entries are the client's to invent.
    const forwarded = String(req.headers["x-forwarded-for"] ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    if (forwarded.length > 0) return forwarded[forwarded.length - 1];
  }
  return req.socket.remoteAddress ?? "unknown";
}

// A request Node cannot parse (a request line or headers over its 16 KiB limit, a
// malformed request line) never reaches a handler: answer it in the API's one error
// shape (lib/errors.ts) instead of Node's empty 400/431.
function answerUnparsable(error, socket) {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: tooLarge
      ? { code: "headers_too_large", message: "The request line or headers are larger than the server accepts (16 KiB)" }
      : { code: "bad_request", message: "The request is not valid HTTP" },
  });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Starts Next.js and the HTTP server; resolves once it listens. */
export async function serve({ port, hostname }) {
  process.env.NODE_ENV = "production";
  const { default: next } = await import("next");
  // Start from the configuration as the build resolved it, the way the server Next
  // generates for `output: "standalone"` does (the variable below is how that server
  // hands it over). Otherwise Next would transpile next.config.ts with SWC at every
  // start and keep SWC's native module (~25 MB) resident in the server for nothing.
  // That path skips Next's loading of .env files, so it is done here first.
  const nextRequire = createRequire(fileURLToPath(import.meta.resolve("next/package.json")));
  nextRequire("@next/env").loadEnvConfig(ROOT, false);
  const built = path.join(ROOT, ".next", "required-server-files.json");
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG ??= JSON.stringify(JSON.parse(readFileSync(built, "utf8")).config);
  const app = next({ dev: false, dir: ROOT, port, hostname });
  const handle = app.getRequestHandler();
  await app.prepare();

  const trustProxy = process.env.SWARMDECK_TRUST_PROXY === "1";
  const server = http.createServer((req, res) => {
    req.headers[CLIENT_ADDRESS_HEADER] = clientAddress(req, trustProxy);
    const fastPath = globalThis.swarmdeckFastPath;
    if (fastPath?.(req, res)) return;
    handle(req, res);
  });
  // Idle keep-alive connections stay open longer than Node's 5 s default (and than the
  // usual proxy timeouts), so workers polling in a loop keep reusing their connections.
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerUnparsable);
  server.on("error", (error) => {
    console.error(`Could not listen on port ${port}: ${error.message}`);
    process.exit(1);
  });
  await new Promise((resolve) => server.listen(port, hostname, resolve));
  const shown = !hostname || hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  console.log(`▲ Ready on http://${shown}:${port}`);
  const stopIdleMemory = giveBackMemoryWhenIdle();

  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stopIdleMemory();
      server.close();
      server.closeAllConnections();
      app.close().finally(() => process.exit(0));
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { port: { type: "string", default: "3000" }, hostname: { type: "string" } } });
  await serve({ port: Number(values.port), hostname: values.hostname });
}
