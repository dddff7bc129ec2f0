// npm run bench:memory: memory at scale, over HTTP against the production server
// (on a fresh SQLite file, with a fake OpenAI-compatible embedder in this
// process). Seeds N memories (default 100k, 512 dims), then prints ingest rate
// per block, p50/p95 search latency per mode, recall@10 of the vector index
// against exact brute force, restart time to healthy and to vector-ready, and the
// app's RSS. Env: BENCH_MEMORIES, BENCH_DIMS, BENCH_QUERIES.
import { type ChildProcess, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { cosine, VectorIndex } from "../lib/memory/vector-index";
import { fakeEmbedding, startFakeOpenAI } from "../tests/support/fake-openai";
import { freePort } from "../tests/support/test-server";
import { keepAliveClient, parseReply, type Reply } from "./bench-http";
import { ensureBuild, migrateDeploy, startServer } from "./launch";

const ROOT = path.resolve(import.meta.dirname, "..");
const INDEX_TOTAL = Number(process.env.BENCH_MEMORIES ?? 100_000);
/** Memories pushed through HTTP (ingest, embedding, search, restart); defaults to BENCH_MEMORIES. */
const TOTAL = Number(process.env.BENCH_HTTP_MEMORIES ?? INDEX_TOTAL);
const DIMS = Number(process.env.BENCH_DIMS ?? 512);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const BATCH = 500;
/** BENCH_SEED=direct: write the memories (with embeddings) straight into SQLite before start, to measure search, restart and RSS at full size without waiting for HTTP ingest. */
const DIRECT = process.env.BENCH_SEED === "direct";

function seedDirect() {
  const db = new Database(dbFile);
  const started = performance.now();
  const now = Date.now();
  db.transaction(() => {
    const agent = db.prepare("INSERT INTO Agent (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)");
    for (let i = 0; i < 20; i++) agent.run(`benchagent${i}`, `bench-direct-${i}`, now, now);
    const insert = db.prepare(
      `INSERT INTO Memory (scope, agentId, name, content, source, embedding, embeddingModel, embeddingDims, embeddingStatus, embeddingAttempts, contentHash, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, 'manual', ?, 'fake', ?, 'done', 1, ?, ?, ?)`,
    );
    const random = rng(7);
    for (let i = 0; i < TOTAL; i++) {
      const { name, content } = lesson(random, i);
      const vector = fakeEmbedding(`${name}\n\n${content}`, DIMS);
      const swarm = i % 5 === 0;
      insert.run(
        swarm ? "swarm" : "agent",
        swarm ? null : `benchagent${i % 20}`,
        name,
        content,
        Buffer.from(vector.buffer),
        DIMS,
        `h${i}`,
        now - i,
        now,
      );
    }
  })();
  db.close();
  console.log(
    `seeded ${TOTAL} memories with embeddings straight into SQLite in ${((performance.now() - started) / 1000).toFixed(1)} s (not an ingest figure)`,
  );
}
const BLOCK = 10_000;

// ---- synthetic but realistic agent lessons (topics, tools, symptoms, fixes) ----
const TOPICS = [
  "deploy",
  "database migration",
  "flaky test",
  "auth token",
  "docker build",
  "npm install",
  "typescript types",
  "CI pipeline",
  "cache invalidation",
  "timezone handling",
  "memory leak",
  "rate limit",
  "git rebase",
  "lint rules",
  "API pagination",
  "file upload",
  "websocket reconnect",
  "cron schedule",
  "payment webhook",
  "search index",
];
const TOOLS = [
  "postgres",
  "sqlite",
  "redis",
  "nginx",
  "kubernetes",
  "terraform",
  "vitest",
  "playwright",
  "next.js",
  "prisma",
  "stripe",
  "s3",
  "github actions",
  "bun",
  "node 20",
  "python",
  "go",
  "rust",
  "kafka",
  "grafana",
];
const SYMPTOMS = [
  "fails intermittently",
  "times out after 30 seconds",
  "returns a 500",
  "hangs forever",
  "leaks file handles",
  "crashes on start",
  "is slow under load",
  "drops messages",
  "double-charges users",
  "loses the session",
];
const FIXES = [
  "pin the version",
  "add a retry with backoff",
  "raise the pool size",
  "run it in band",
  "set the timezone to UTC",
  "invalidate the cache key",
  "add an index",
  "increase the heap limit",
  "use a lock",
  "stream instead of buffering",
  "check the env variable first",
  "rebase onto main before pushing",
];

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
const pick = <T>(random: () => number, list: T[]): T => list[Math.floor(random() * list.length)]!;

function lesson(random: () => number, i: number) {
  const topic = pick(random, TOPICS);
  const tool = pick(random, TOOLS);
  const symptom = pick(random, SYMPTOMS);
  const fix = pick(random, FIXES);
  const extra = pick(random, TOOLS);
  return {
    name: `${topic} with ${tool} #${i}`,
    content: `When the ${topic} step with ${tool} ${symptom}, ${fix}. Seen while working on ticket ${i % 977} with ${extra}; verify with a local run before pushing.`,
  };
}

function query(random: () => number) {
  return `${pick(random, TOPICS)} ${pick(random, SYMPTOMS)} ${pick(random, TOOLS)}`;
}

// ---- the server ----
type App = { child: ChildProcess; baseUrl: string };
const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-bench-"));
const dbFile = path.join(dataDir, "bench.db");
const adminToken = `sdo_bench_${randomBytes(24).toString("base64url")}`;

async function startApp(env: NodeJS.ProcessEnv): Promise<{ app: App; healthyMs: number }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // The production server `npm start` runs.
  const child = startServer("start", { port, hostname: "127.0.0.1", env: { ...env, NEXTAUTH_URL: baseUrl }, stdio: "quiet" });
  for (;;) {
    if (child.exitCode !== null) throw new Error("the server exited");
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  running = child;
  return { app: { child, baseUrl }, healthyMs: performance.now() - started };
}

function rssMb(pid: number): number {
  const pids = [pid];
  const children = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean)
    .map(Number);
  pids.push(...children);
  let kb = 0;
  for (const p of pids) {
    try {
      const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
      kb += Number(match?.[1] ?? 0);
    } catch {}
  }
  return Math.round(kb / 1024);
}

const clients = new Map<string, ReturnType<typeof keepAliveClient>>();
/** A kept-alive client per server (the restart gets a new one; scripts/bench-http.ts). */
function request(app: App, method: string, url: string, body?: unknown, auth = true): Promise<Reply> {
  let client = clients.get(app.baseUrl);
  if (!client) {
    client = keepAliveClient(app.baseUrl, 8);
    clients.set(app.baseUrl, client);
  }
  return client.request(method, url, auth ? adminToken : undefined, body);
}

async function call(app: App, method: string, url: string, body?: unknown, attempt = 1): Promise<any> {
  // A reset connection is retried (writes are idempotent here: exact duplicates return the same ids).
  let response: Reply;
  try {
    response = await request(app, method, url, body);
  } catch (error) {
    if (attempt >= 3) throw error;
    console.warn(`retrying ${method} ${url} after ${(error as Error).message}`);
    return call(app, method, url, body, attempt + 1);
  }
  if (response.status < 200 || response.status >= 300)
    throw new Error(`${method} ${url}: ${response.status} ${response.text.slice(0, 500)}`);
  return parseReply(response);
}

const navigatorCores = () => spawnSync("nproc", { encoding: "utf8" }).stdout.trim();
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const fmt = (n: number) => n.toFixed(1);

/** The vector index alone at full scale, in this process: build time, search latency, recall@10, size. */
function indexBench() {
  const random = rng(7);
  const t0 = performance.now();
  const vectors: Float32Array[] = [];
  for (let i = 0; i < INDEX_TOTAL; i++) {
    const { name, content } = lesson(random, i);
    vectors.push(fakeEmbedding(`${name}\n\n${content}`, DIMS));
  }
  const embedSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const index = new VectorIndex(DIMS);
  vectors.forEach((vector, i) => {
    index.add(i + 1, vector, { agentId: i % 5 === 0 ? null : `agent-${i % 20}`, scope: i % 5 === 0 ? "swarm" : "agent" });
  });
  const buildMs = performance.now() - t1;
  const indexMb = index.bytes / 1024 / 1024;
  const queryRandom = rng(99);
  const times: number[] = [];
  const workerTimes: number[] = [];
  let hits = 0;
  const n = Math.min(QUERIES, 200);
  for (let q = 0; q < n; q++) {
    const vector = fakeEmbedding(query(queryRandom), DIMS);
    const t = performance.now();
    const got = index.search(vector, { limit: 10, filter: { agent: true, swarm: true, agentCode: -1 } });
    times.push(performance.now() - t);
    const tw = performance.now();
    index.search(vector, { limit: 10, filter: { agent: true, swarm: true, agentCode: index.findAgentCode("agent-3") } });
    workerTimes.push(performance.now() - tw);
    if (q < 100) {
      const exact = vectors
        .map((v, i) => ({ id: i + 1, c: cosine(vector, v) }))
        .sort((a, b) => b.c - a.c)
        .slice(0, 10);
      const set = new Set(got.map((hit) => hit.id));
      hits += exact.filter((hit) => set.has(hit.id)).length;
    }
  }
  console.log(`vector index, in process: ${INDEX_TOTAL} x ${DIMS} dims (embedded by the fake model in ${embedSeconds.toFixed(1)} s)`);
  console.log(
    `  build from scratch ${(buildMs / 1000).toFixed(2)} s (incremental adds, no rebuild); ${Math.round(indexMb)} MB of vector storage`,
  );
  console.log(
    `  search p50 ${fmt(percentile(times, 50))} ms p95 ${fmt(percentile(times, 95))} ms (operator: all memories); worker view p50 ${fmt(percentile(workerTimes, 50))} ms p95 ${fmt(percentile(workerTimes, 95))} ms`,
  );
  console.log(`  recall@10 vs exact brute force: ${(hits / (Math.min(100, n) * 10)).toFixed(3)} (${Math.min(100, n)} queries)`);
}

async function main() {
  console.log(
    `load average at start: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${navigatorCores()} cores`,
  );
  if (process.env.BENCH_INDEX !== "0") indexBench();
  if (TOTAL <= 0) return;
  ensureBuild();
  const fake = await startFakeOpenAI();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: `file:${dbFile}`,
    SWARMDECK_DATA_DIR: dataDir,
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    SWARMDECK_ADMIN_EMAIL: "admin@bench.local",
    SWARMDECK_ADMIN_PASSWORD: "correct-horse-battery",
    SWARMDECK_ADMIN_TOKEN: adminToken,
    NEXT_TELEMETRY_DISABLED: "1",
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "sk-bench",
    EMBEDDING_DIMENSIONS: String(DIMS),
  };
  migrateDeploy(env);
  const seeded = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "prisma/seed.ts"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (seeded.status !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
  if (DIRECT) seedDirect();
  const { app } = await startApp(env);
  console.log(`memory bench: ${TOTAL} memories, ${DIMS} dims, ${QUERIES} queries per mode, server ${app.baseUrl}`);

  const agents: string[] = [];
  for (let i = 0; i < (DIRECT ? 0 : 20); i++)
    agents.push((await call(app, "POST", "/api/v1/agents", { name: `bench-${i}-${Date.now().toString(36)}` })).agent.id);

  // Ingest: batches of 500 per request, two requests in flight; rate per 10k block.
  if (!DIRECT) await ingestOverHttp(app, agents, fake);
  await searchAndRestart(app, env, fake);
}

async function ingestOverHttp(app: App, agents: string[], fake: Awaited<ReturnType<typeof startFakeOpenAI>>) {
  const random = rng(7);
  const blockRates: number[] = [];
  let blockStart = performance.now();
  const ingestStart = performance.now();
  // The generator can repeat a lesson for the same agent: those are stored once.
  let deduplicated = 0;
  for (let done = 0; done < TOTAL; ) {
    const requests = [0, 1].map(() => {
      const items = Array.from({ length: Math.min(BATCH, TOTAL - done) }, (_, k) => {
        const i = done + k;
        const { name, content } = lesson(random, i);
        return i % 5 === 0 ? { name, content, scope: "swarm" } : { name, content, scope: "agent", agentId: agents[i % agents.length] };
      });
      done += items.length;
      return items.length ? call(app, "POST", "/api/v1/memories", { items }) : Promise.resolve(null);
    });
    for (const reply of await Promise.all(requests)) deduplicated += reply?.deduplicated ?? 0;
    if (done % BLOCK === 0 || done >= TOTAL) {
      const now = performance.now();
      blockRates.push(Math.round((BLOCK / (now - blockStart)) * 1000));
      blockStart = now;
    }
  }
  const ingestSeconds = (performance.now() - ingestStart) / 1000;
  console.log(
    `ingest: ${TOTAL} memories in ${ingestSeconds.toFixed(1)} s = ${Math.round(TOTAL / ingestSeconds)}/s (batches of ${BATCH}, 2 in flight; ${deduplicated} exact duplicates stored once)`,
  );
  console.log(`ingest per ${BLOCK} block (memories/s, flat = no slowdown as the table grows): ${blockRates.join(", ")}`);

  // Embeddings are computed in the background; wait for them.
  const embedStart = performance.now();
  for (;;) {
    const health = await call(app, "GET", "/api/v1/memories/health?days=1");
    if (health.totals.pending === 0 && health.totals.embedded >= TOTAL - deduplicated) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  console.log(
    `background embedding drained ${((performance.now() - embedStart) / 1000).toFixed(1)} s after ingest ended (${fake.calls.embeddings} provider calls)`,
  );
}

async function searchAndRestart(first: App, env: NodeJS.ProcessEnv, fake: Awaited<ReturnType<typeof startFakeOpenAI>>) {
  let app = first;

  const queryRandom = rng(99);
  const queries = Array.from({ length: QUERIES }, () => query(queryRandom));
  // Wait for the vector index (loaded in the background at start), then warm up.
  const loadStart = performance.now();
  while ((await call(app, "POST", "/api/v1/memories/search", { query: queries[0], mode: "vector" })).mode !== "vector") {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`vector index ready ${((performance.now() - loadStart) / 1000).toFixed(1)} s after the first search asked for it`);
  for (const q of queries.slice(0, 10)) await call(app, "POST", "/api/v1/memories/search", { query: q, mode: "hybrid" });

  // The HTTP floor with the same client: the cheapest route (GET /api/health, no auth, no search).
  const floor: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await request(app, "GET", "/api/health", undefined, false);
    floor.push(performance.now() - t);
  }
  console.log(`HTTP floor: GET /api/health p50 ${fmt(percentile(floor, 50))} ms  p95 ${fmt(percentile(floor, 95))} ms (same client)`);

  const latency: Record<string, number[]> = { keyword: [], vector: [], hybrid: [] };
  const vectorResults: { query: string; ids: number[] }[] = [];
  for (const mode of ["keyword", "vector", "hybrid"] as const) {
    for (const q of queries) {
      const t = performance.now();
      const reply = await call(app, "POST", "/api/v1/memories/search", { query: q, limit: mode === "vector" ? 30 : 10, mode });
      latency[mode]!.push(performance.now() - t);
      if (mode === "vector") {
        if (reply.mode !== "vector") throw new Error(`vector search answered in ${reply.mode} mode (${reply.fallbackReason})`);
        const byVector = [...reply.results].sort((a: any, b: any) => (b.vectorScore ?? 0) - (a.vectorScore ?? 0));
        vectorResults.push({ query: q, ids: byVector.slice(0, 10).map((r: any) => r.id) });
      }
    }
  }
  for (const mode of ["keyword", "vector", "hybrid"]) {
    console.log(
      `search ${mode.padEnd(7)} p50 ${fmt(percentile(latency[mode]!, 50))} ms  p95 ${fmt(percentile(latency[mode]!, 95))} ms  (HTTP round trip, ${QUERIES} queries)`,
    );
  }

  // The same searches timed inside the app (MemoryRetrieval.durationMs: no HTTP, no JSON).
  const db = new Database(dbFile, { readonly: true });
  const inside = db.prepare("SELECT mode, fallbackReason, durationMs FROM MemoryRetrieval ORDER BY id DESC LIMIT ?").all(QUERIES * 3) as {
    mode: string;
    fallbackReason: string | null;
    durationMs: number;
  }[];
  for (const mode of ["keyword", "vector", "hybrid"]) {
    const values = inside.filter((row) => row.mode === mode).map((row) => row.durationMs);
    console.log(`  in-app ${mode.padEnd(7)} p50 ${fmt(percentile(values, 50))} ms  p95 ${fmt(percentile(values, 95))} ms`);
  }
  console.log(
    `load average (1/5/15 min) during the run: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} on ${navigatorCores()} cores`,
  );

  // Recall@10 of the vector path against exact brute force over every stored vector.
  const rows = db.prepare("SELECT id, embedding FROM Memory WHERE embeddingStatus = 'done'").all() as { id: number; embedding: Buffer }[];
  db.close();
  const ids = new Int32Array(rows.length);
  const matrix = new Float32Array(rows.length * DIMS);
  rows.forEach((row, i) => {
    ids[i] = row.id;
    matrix.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, DIMS), i * DIMS);
  });
  let hits = 0;
  for (const { query: q, ids: got } of vectorResults.slice(0, 100)) {
    const v = fakeEmbedding(q, DIMS);
    const scores = new Float32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += matrix[i * DIMS + d]! * v[d]!;
      scores[i] = dot;
    }
    const exact = [...scores.keys()]
      .sort((a, b) => scores[b]! - scores[a]!)
      .slice(0, 10)
      .map((i) => ids[i]!);
    const set = new Set(got);
    hits += exact.filter((id) => set.has(id)).length;
  }
  console.log(
    `vector recall@10 vs exact brute force: ${(hits / (Math.min(100, vectorResults.length) * 10)).toFixed(3)} (${Math.min(100, vectorResults.length)} queries)`,
  );

  const pid = app.child.pid!;
  console.log(`app RSS after the searches: ${rssMb(pid)} MB`);

  // Restart on the same database.
  const exited = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGTERM");
  await exited;
  const restarted = await startApp(env);
  app = restarted.app;
  const readyStart = performance.now();
  for (;;) {
    const reply = await call(app, "POST", "/api/v1/memories/search", { query: queries[0], mode: "vector" });
    if (reply.mode === "vector") break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const vectorReadyMs = restarted.healthyMs + (performance.now() - readyStart);
  console.log(
    `restart: healthy in ${(restarted.healthyMs / 1000).toFixed(2)} s; vector index loaded (first vector answer) ${(vectorReadyMs / 1000).toFixed(2)} s after start`,
  );
  const after: number[] = [];
  for (const q of queries.slice(0, 50)) {
    const t = performance.now();
    await call(app, "POST", "/api/v1/memories/search", { query: q, mode: "hybrid" });
    after.push(performance.now() - t);
  }
  console.log(
    `after restart: hybrid p50 ${fmt(percentile(after, 50))} ms p95 ${fmt(percentile(after, 95))} ms; app RSS ${rssMb(app.child.pid!)} MB`,
  );

  const done = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGTERM");
  await done;
  await fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

let running: ChildProcess | null = null;
process.on("exit", () => running?.kill("SIGTERM"));

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
