// The program the sandbox process runs (lib/tools/sandbox/sandbox.ts writes it next
// to the compiled tool and starts it under Node's permission model). Kept as a
// string so the app's server bundle and the worker both carry it without a file path.
//
// Order matters: network and environment are closed BEFORE the tool's module is
// imported, so nothing the tool runs at load time sees them either.
export const RUNNER_SOURCE = String.raw`
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const config = JSON.parse(fs.readFileSync(new URL("./config.json", import.meta.url), "utf8"));
const write = (message) => { try { fs.writeSync(3, JSON.stringify(message)); } catch {} };

function denied(what) {
  const error = new Error("Access to this API has been restricted: capabilities give this agent's tools no network (" + what + ")");
  error.code = "ERR_ACCESS_DENIED";
  error.permission = "Network";
  return error;
}
function lock(target, key, what) {
  if (!target || !(key in target)) return;
  Object.defineProperty(target, key, { value: function () { throw denied(what); }, writable: false, configurable: false });
}

if (!config.network) {
  const net = await import("node:net");
  const tls = await import("node:tls");
  const dgram = await import("node:dgram");
  const dns = await import("node:dns");
  const http = await import("node:http");
  const https = await import("node:https");
  const http2 = await import("node:http2");
  lock(net.default.Socket.prototype, "connect", "net.Socket.connect");
  lock(net.default.Server.prototype, "listen", "net.Server.listen");
  for (const key of ["connect", "createConnection", "createServer"]) lock(net.default, key, "net." + key);
  lock(tls.default, "connect", "tls.connect");
  lock(dgram.default, "createSocket", "dgram.createSocket");
  // A socket made with new dgram.Socket({ lookup }) skips both createSocket and dns.lookup.
  for (const key of ["bind", "connect", "send"]) lock(dgram.default.Socket.prototype, key, "dgram.Socket." + key);
  for (const key of Object.keys(dns.default)) if (typeof dns.default[key] === "function" && key !== "getServers") lock(dns.default, key, "dns." + key);
  for (const key of Object.keys(dns.default.promises)) if (typeof dns.default.promises[key] === "function") lock(dns.default.promises, key, "dns." + key);
  for (const mod of [http.default, https.default]) for (const key of ["request", "get", "createServer"]) lock(mod, key, "http." + key);
  lock(http2.default, "connect", "http2.connect");
  for (const key of ["fetch", "WebSocket", "EventSource"]) lock(globalThis, key, key);
  syncBuiltinESMExports();
}

// The environment was emptied when the process started; keep it that way.
Object.defineProperty(process, "env", { value: Object.freeze({}), writable: false, configurable: false });

// An await that can never settle must hit the wall-time limit, not end the process quietly.
const keepAlive = setInterval(() => {}, 1 << 30);

function describeError(error) {
  if (error && error.code === "ERR_ACCESS_DENIED") {
    const what = error.permission ? error.permission + (error.resource ? " " + error.resource : "") : "";
    return { reason: "denied", error: "the sandbox refused " + (what || "this") + ": " + error.message };
  }
  const message = error instanceof Error ? (error.stack || error.message) : String(error);
  return { reason: "threw", error: message.split("\n").slice(0, 12).join("\n") };
}

async function main() {
  let mod;
  try {
    mod = await import("./tool.mjs");
  } catch (error) {
    const described = describeError(error);
    return { ok: false, reason: described.reason === "denied" ? "denied" : "load", error: described.error };
  }
  const tool = mod.tool;
  const problems = [];
  if (!tool || typeof tool !== "object") problems.push("the module has no default export (or named export \"tool\") with the tool's definition");
  else {
    if (typeof tool.name !== "string") problems.push("name must be a string");
    if (typeof tool.description !== "string" || !tool.description.trim()) problems.push("description must be a non-empty string");
    if (!tool.inputSchema || typeof tool.inputSchema.safeParse !== "function") problems.push("inputSchema must be a zod schema (import { z } from \"zod\")");
    if (typeof tool.execute !== "function") problems.push("execute(input, signal) must be a function");
    if (tool.timeoutMs !== undefined && (!Number.isInteger(tool.timeoutMs) || tool.timeoutMs < 100)) problems.push("timeoutMs, when given, must be a whole number of milliseconds (at least 100)");
  }
  if (problems.length) return { ok: false, reason: "invalid_tool", error: problems.join("; ") };
  let inputSchema;
  try {
    inputSchema = mod.describeInput(tool.inputSchema);
  } catch (error) {
    return { ok: false, reason: "invalid_tool", error: "inputSchema cannot be described as JSON Schema: " + (error && error.message) };
  }
  const meta = { name: tool.name, description: tool.description, inputSchema, timeoutMs: tool.timeoutMs ?? null };
  const parsed = tool.inputSchema.safeParse(config.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => (i.path.join(".") || "input") + ": " + i.message).join("; ");
    return { ok: false, reason: "invalid_input", error: "the input does not match inputSchema: " + issues, meta };
  }
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("time limit")), Math.max(50, config.timeoutMs - 50)).unref();
  try {
    const output = await tool.execute(parsed.data, controller.signal);
    const text = JSON.stringify(output === undefined ? null : output);
    return { ok: true, output: JSON.parse(text), meta };
  } catch (error) {
    return { ok: false, ...describeError(error), meta };
  }
}

const result = await main();
write(result);
clearInterval(keepAlive);
process.exit(0);
`;
