// A small OpenAI-compatible server for tests and benchmarks: the real
// /v1/embeddings and /v1/chat/completions request and response shapes, with
// deterministic embeddings. An embedding is a hashed bag of stemmed words (with
// a small synonym table standing in for a model's sense of meaning) plus
// character 4-grams, projected to `dimensions` and normalised, so paraphrases
// land near each other the way a real model's do.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { stemmer } from "stemmer";
import { fnv1a as hash } from "../../lib/memory/text";

const SYNONYMS: string[][] = [
  [
    "fail",
    "failure",
    "failed",
    "failing",
    "crash",
    "crashed",
    "crashes",
    "broke",
    "broken",
    "break",
    "breaks",
    "error",
    "errors",
    "exception",
    "bug",
    "flaky",
    "flake",
  ],
  ["test", "tests", "testing", "spec", "specs", "suite", "assertion", "assertions"],
  ["deploy", "deployment", "deploying", "release", "releasing", "ship", "shipping", "rollout", "publish"],
  ["database", "db", "sqlite", "postgres", "postgresql", "sql", "table", "tables"],
  ["migration", "migrations", "migrate", "schema"],
  [
    "slow",
    "slowly",
    "latency",
    "performance",
    "perf",
    "sluggish",
    "lag",
    "speed",
    "fast",
    "faster",
    "timeout",
    "timeouts",
    "hang",
    "hangs",
    "stall",
  ],
  [
    "auth",
    "authentication",
    "login",
    "logins",
    "token",
    "tokens",
    "credential",
    "credentials",
    "secret",
    "secrets",
    "password",
    "apikey",
    "key",
    "keys",
  ],
  ["memory", "ram", "heap", "oom", "leak", "leaks", "rss"],
  ["dependency", "dependencies", "package", "packages", "npm", "install", "library", "libraries", "module", "modules"],
  ["docker", "container", "containers", "image", "images", "dockerfile"],
  ["git", "branch", "branches", "commit", "commits", "rebase", "merge", "merged", "pr", "pull"],
  ["lint", "linter", "format", "formatter", "prettier", "biome", "eslint", "style"],
  ["typescript", "ts", "types", "typing", "typecheck", "tsc", "type"],
  ["ci", "pipeline", "pipelines", "workflow", "workflows", "build", "builds", "building"],
  ["api", "endpoint", "endpoints", "route", "routes", "http", "request", "requests", "rest"],
  ["cache", "caching", "cached", "memoize", "memoise"],
  ["config", "configuration", "env", "environment", "settings", "variable", "variables"],
  ["log", "logs", "logging", "trace", "traces", "tracing"],
  ["retry", "retries", "retrying", "backoff", "again"],
  ["user", "users", "customer", "customers", "person", "people", "operator"],
  ["doc", "docs", "documentation", "readme", "guide", "notes"],
  ["date", "dates", "time", "timezone", "timezones", "utc", "timestamp", "timestamps", "clock"],
  ["file", "files", "path", "paths", "directory", "directories", "folder", "folders"],
  ["prefer", "preference", "preferences", "likes", "wants", "style", "convention", "conventions"],
  ["review", "reviewer", "reviews", "feedback", "approve", "approval"],
  ["search", "find", "lookup", "query", "queries", "retrieve", "retrieval"],
  ["css", "styling", "tailwind", "layout", "ui", "frontend", "design"],
  ["lock", "locks", "locked", "mutex", "deadlock", "deadlocks", "race", "concurrency", "concurrent"],
  ["port", "ports", "listen", "bind", "address"],
  ["payment", "payments", "billing", "invoice", "invoices", "stripe", "charge"],
];

const canonical = new Map<string, string>();
for (const group of SYNONYMS) {
  const head = `syn:${group[0]}`;
  for (const word of group) {
    canonical.set(word, head);
    canonical.set(stemmer(word), head);
  }
}

const STOP = new Set(
  "a an and are as at be by for from has have how i in is it its of on or that the this to was we were what when where which with you your do does did not no can".split(
    " ",
  ),
);

/** The deterministic embedding of `text` (unit length). */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const add = (feature: string, weight: number) => {
    for (let k = 0; k < 2; k++) {
      const h = hash(feature, k);
      vector[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * weight;
    }
  };
  const tokens = (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => !STOP.has(word));
  for (const word of tokens) {
    const stem = stemmer(word);
    const concept = canonical.get(word) ?? canonical.get(stem);
    if (concept) add(concept, 1.4);
    add(`w:${stem}`, 1);
    const padded = `_${stem}_`;
    for (let i = 0; i + 4 <= padded.length; i++) add(`g:${padded.slice(i, i + 4)}`, 0.25);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dimensions; i++) vector[i]! /= norm;
  return vector;
}

export type FakeOpenAI = {
  url: string;
  /** Counts of calls, by endpoint. */
  calls: { embeddings: number; chat: number };
  /**
   * Behaviour switches: fail embeddings (500), delay every answer, answer float
   * arrays whatever encoding_format asked for (as some OpenAI-compatible servers do).
   */
  mode: { failEmbeddings: boolean; delayMs: number; floatsOnly: boolean };
  /** The chat model's answer (default: a bulleted distillation, or "No significant learnings." for routine sessions). */
  chatAnswer: (messages: { role: string; content: string }[]) => string;
  stop(): Promise<void>;
};

function readJson(req: IncomingMessage): Promise<any> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"));
      } catch (error) {
        reject(error);
      }
    });
    req.on("error", reject);
  });
}

function defaultChat(messages: { role: string; content: string }[]): string {
  const user = messages.find((message) => message.role === "user")?.content ?? "";
  if (/routine|nothing (new|notable)/i.test(user)) return "No significant learnings.";
  const lines = user
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !/^(task|session transcript summary|##)/i.test(line));
  return lines
    .slice(0, 6)
    .map((line) => `- ${line.replace(/^[-*]\s*/, "")}`)
    .join("\n");
}

export async function startFakeOpenAI(options: { port?: number } = {}): Promise<FakeOpenAI> {
  const state: FakeOpenAI = {
    url: "",
    calls: { embeddings: 0, chat: 0 },
    mode: { failEmbeddings: false, delayMs: 0, floatsOnly: false },
    chatAnswer: defaultChat,
    stop: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const body = req.method === "POST" ? await readJson(req) : {};
      if (state.mode.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.mode.delayMs));
      if (req.method === "POST" && req.url === "/v1/embeddings") {
        state.calls.embeddings++;
        if (state.mode.failEmbeddings) {
          return send(500, { error: { message: "The embedding service is down (fake)", type: "server_error", code: null } });
        }
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        if (inputs.some((input) => typeof input !== "string" || input.length === 0)) {
          return send(400, { error: { message: "input must be a non-empty string or array of strings", type: "invalid_request_error" } });
        }
        const dims = Number(body.dimensions ?? 512);
        const data = inputs.map((input, index) => {
          const vector = fakeEmbedding(input, dims);
          const embedding =
            body.encoding_format === "base64" && !state.mode.floatsOnly
              ? Buffer.from(vector.buffer).toString("base64")
              : Array.from(vector);
          return { object: "embedding", index, embedding };
        });
        const tokens = inputs.reduce((sum, input) => sum + Math.ceil(input.length / 4), 0);
        return send(200, { object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
      }
      if (req.method === "POST" && req.url === "/v1/chat/completions") {
        state.calls.chat++;
        const content = state.chatAnswer(body.messages ?? []);
        return send(200, {
          id: `chatcmpl-fake-${state.calls.chat}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        });
      }
      send(404, { error: { message: `No route ${req.method} ${req.url}`, type: "invalid_request_error" } });
    } catch (error) {
      send(400, { error: { message: String(error), type: "invalid_request_error" } });
    }
  });
  // Longer than any client's idle keep-alive, so a reused socket is never closed under a request.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/v1`;
  state.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
