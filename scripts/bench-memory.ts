// npm run bench:memory: memory at scale as agents feel it, over HTTP against the
// server `npm start` runs (the real launcher, on a fresh SQLite file or a fresh
// PostgreSQL database, with a fake OpenAI-compatible embedder in this process).
//
// The corpus is long-tailed (tests/support/zipf-corpus.ts: a 5,000-word
// vocabulary with a Zipf skew) and queries are three words of a stored memory, so
// their words are common ones. It is written straight into SQLite with its
// embeddings before the start (not an ingest figure; writes are measured apart).
// On PostgreSQL (--store postgresql: a new database on TEST_DATABASE_URL's server,
// default postgresql://postgres@127.0.0.1:5432/postgres, dropped after) with
// --instances N, N app instances serve the one database: searches and writes go
// to each in turn, and server CPU counts the instances and PostgreSQL's backends.
// Then, with an embedding provider and again without one (keyword only):
//   - search on the agent's path (POST /api/worker/memories/search, a worker
//     token, default mode) and the operator's, with plain fetch and with the
//     kept-alive node:http client, p50/p95;
//   - single writes (POST /api/worker/memories, one memory per request, 16
//     clients, each with its own worker token) and batched writes (500 a request);
//   - once, each client's ceiling for those single writes: the same loops against a
//     server that does no work (bench-http.ts, clientCeiling);
//   - the RSS of every process `npm start` leaves running;
//   - restart to healthy on the same database.
// (The keyword index's recall@10 against FTS5's exhaustive BM25 is asserted by
// lib/memory/keyword-index.test.ts, part of npm test, and measured at scale by --index.)
// Flags: --memories N (default 100000), --1m (1,000,000; not part of npm test),
// --queries Q (default 100), --writes W (single writes per run, default 4000,
// after 1,000 unmeasured ones to warm the path up),
// --index (also the vector index alone, in process: build, latency, and how often
// the exact top 10 are within its best 300 estimates, which search re-ranks exactly;
// and the keyword index alone: its recall@10 against FTS5's exhaustive BM25 on the
// same corpus, and how many postings it read, tests/support/keyword-reference.ts;
// --index-only: those alone, no server),
// --store sqlite|postgresql (default sqlite), --instances N (PostgreSQL only, default 1),
// --modes provider,keyword,embedded (the configurations to measure; default all three:
// at 1M the embedded default's local re-embedding alone takes several minutes).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { MAX_TOUCHED } from "../lib/memory/keyword-index";
import { queryStems } from "../lib/memory/text";
import { cosine, VectorIndex } from "../lib/memory/vector-index";
import { fakeEmbedding, startFakeOpenAI } from "../tests/support/fake-openai";
import { keywordFixture, recall } from "../tests/support/keyword-reference";
import { createPostgresDatabase } from "../tests/support/test-db";
import { freePort } from "../tests/support/test-server";
import { rng, zipfCorpus } from "../tests/support/zipf-corpus";
import { clientCeiling, cpuSince, keepAliveClient, parseStoreOptions, type Reply, STORE_OPTIONS } from "./bench-http";
import { migrateDeploy } from "./launch";

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: process.env.BENCH_MEMORIES ?? "100000" },
    "1m": { type: "boolean", default: false },
    queries: { type: "string", default: process.env.BENCH_QUERIES ?? "100" },
    writes: { type: "string", default: "4000" },
    index: { type: "boolean", default: false },
    /** Only the in-process index benches of --index: no server. */
    "index-only": { type: "boolean", default: false },
    /** Which of the three configurations to measure, in this order: provider, keyword, embedded. */
    modes: { type: "string", default: "provider,keyword,embedded" },
    ...STORE_OPTIONS,
  },
});
const { store: STORE, instances: INSTANCES } = parseStoreOptions(values);
const ROOT = path.resolve(import.meta.dirname, "..");
const TOTAL = values["1m"] ? 1_000_000 : Number(values.memories);
const QUERIES = Number(values.queries);
const WRITES = Number(values.writes);
const MODE_NAMES = ["provider", "keyword", "embedded"] as const;
const MODES = new Set(values.modes.split(",").map((mode) => mode.trim()));
for (const mode of MODES) {
  if (!(MODE_NAMES as readonly string[]).includes(mode)) throw new Error(`--modes ${values.modes}: a list of ${MODE_NAMES.join(", ")}`);
}
const WARM_UP_WRITES = 1000;
const WARM_UP_SEARCHES = 50;
const DIMS = Number(process.env.BENCH_DIMS ?? 512);
/** The model the seeded vectors are marked with (the fake provider's vectors: tests/support/fake-openai.ts). */
const SEED_MODEL = "bench-fake-embedding";
const AGENTS = 20;
const WRITERS = 16;
const corpus = zipfCorpus();

const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-bench-"));
const adminToken = `sdo_bench_${randomBytes(24).toString("base64url")}`;

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const fmt = (n: number) => n.toFixed(1);
const latency = (values: number[]) => `p50 ${fmt(percentile(values, 50))} ms  p95 ${fmt(percentile(values, 95))} ms`;

type SeedRow = {
  scope: string;
  agentId: string | null;
  name: string;
  content: string;
  embedding: Buffer;
  contentHash: string;
  createdAt: number;
};

/** The seeded memories: agent-scope ones spread over 20 agents, every fifth one swarm-scope, all embedded. */
function* seedRows(): Generator<SeedRow> {
  for (let i = 0; i < TOTAL; i++) {
    const { name, content } = corpus.memory(i);
    const vector = fakeEmbedding(`${name}\n\n${content}`, DIMS);
    const swarm = i % 5 === 0;
    yield {
      scope: swarm ? "swarm" : "agent",
      agentId: swarm ? null : `benchagent${i % AGENTS}`,
      name,
      content,
      embedding: Buffer.from(vector.buffer),
      contentHash: `h${i}`,
      createdAt: Date.now() - i,
    };
  }
}

async function seedDirect(databaseUrl: string) {
  const started = performance.now();
  const now = Date.now();
  if (STORE === "sqlite") {
    const db = new Database(databaseUrl.slice("file:".length));
    db.transaction(() => {
      const agent = db.prepare("INSERT INTO Agent (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)");
      for (let i = 0; i < AGENTS; i++) agent.run(`benchagent${i}`, `bench-${i}`, now, now);
      const insert = db.prepare(
        `INSERT INTO Memory (scope, agentId, name, content, source, embedding, embeddingModel, embeddingDims, embeddingStatus, embeddingAttempts, contentHash, createdAt, updatedAt)
         VALUES (?, ?, ?, ?, 'manual', ?, '${SEED_MODEL}', ?, 'done', 1, ?, ?, ?)`,
      );
      for (const row of seedRows()) {
        insert.run(row.scope, row.agentId, row.name, row.content, row.embedding, DIMS, row.contentHash, row.createdAt, now);
      }
    })();
    db.close();
  } else {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("BEGIN");
      for (let i = 0; i < AGENTS; i++) {
        await client.query(`INSERT INTO "Agent" ("id", "name", "createdAt", "updatedAt") VALUES ($1, $2, $3, $3)`, [
          `benchagent${i}`,
          `bench-${i}`,
          new Date(now),
        ]);
      }
      // A thousand rows a statement, as arrays unnested into rows.
      const flush = async (rows: SeedRow[]) => {
        await client.query(
          `INSERT INTO "Memory" ("scope", "agentId", "name", "content", "source", "embedding", "embeddingModel", "embeddingDims",
             "embeddingStatus", "embeddingAttempts", "contentHash", "createdAt", "updatedAt")
           SELECT "scope", "agentId", "name", "content", 'manual', "embedding", '${SEED_MODEL}', $7, 'done', 1, "contentHash", "createdAt", $8
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::text[], $9::timestamptz[])
             AS t("scope", "agentId", "name", "content", "embedding", "contentHash", "createdAt")`,
          [
            rows.map((row) => row.scope),
            rows.map((row) => row.agentId),
            rows.map((row) => row.name),
            rows.map((row) => row.content),
            rows.map((row) => row.embedding),
            rows.map((row) => row.contentHash),
            DIMS,
            new Date(now),
            rows.map((row) => new Date(row.createdAt)),
          ],
        );
      };
      let batch: SeedRow[] = [];
      for (const row of seedRows()) {
        batch.push(row);
        if (batch.length === 1000) {
          await flush(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await flush(batch);
      await client.query("COMMIT");
      await client.query(`ANALYZE "Memory"`);
    } finally {
      await client.end();
    }
  }
  console.log(`seeded ${TOTAL} memories with embeddings straight into ${STORE} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// ---- the server, started as `npm start` starts it (on PostgreSQL, --instances of it) ----
type App = { child: ChildProcess; baseUrl: string };
const running: App[] = [];

async function startApp(env: NodeJS.ProcessEnv): Promise<{ app: App; healthyMs: number }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // Its own process group, so stopping it stops every process it left running.
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOSTNAME: "127.0.0.1", NEXTAUTH_URL: baseUrl },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const app = { child, baseUrl };
  running.push(app);
  for (;;) {
    if (child.exitCode !== null) throw new Error("npm start exited");
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { app, healthyMs: performance.now() - started };
}

/** The instances, each started once the one before is healthy; answers them and the time each took. */
async function startApps(env: NodeJS.ProcessEnv, what: string): Promise<App[]> {
  const apps: App[] = [];
  for (let i = 0; i < INSTANCES; i++) {
    const { app, healthyMs } = await startApp(env);
    apps.push(app);
    console.log(
      `npm start${INSTANCES > 1 ? ` (instance ${i + 1} of ${INSTANCES})` : ""}: healthy in ${(healthyMs / 1000).toFixed(2)} s (${what})`,
    );
  }
  return apps;
}

async function stopApps(apps: App[]) {
  await Promise.all(
    apps.map(async (app) => {
      const exited = new Promise((resolve) => app.child.once("exit", resolve));
      try {
        process.kill(-app.child.pid!, "SIGTERM");
      } catch {}
      await exited;
      // Whatever the group left behind (it should be nothing).
      for (let i = 0; i < 50 && groupPids(app.child.pid!).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      running.splice(running.indexOf(app), 1);
    }),
  );
}

function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

/** This bench's own connection to the PostgreSQL database, to find the backends serving the instances. */
let observer: pg.Client | null = null;

/** PostgreSQL's backend processes serving the database (on PostgreSQL they do the store's share of the work). */
async function postgresBackends(): Promise<number[]> {
  if (!observer) return [];
  const { rows } = await observer.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return rows.map((row) => row.pid);
}

/**
 * CPU time (user + system) the server spends from now on, in ms: the processes
 * `npm start` left running (every instance) and, on PostgreSQL, the database's
 * backends. A figure the machine's load moves far less than latency.
 */
async function cpuMeter(apps: App[]): Promise<() => number> {
  return cpuSince([...apps.flatMap((app) => groupPids(app.child.pid!)), ...(await postgresBackends())]);
}
const CPU_NOTE = STORE === "postgresql" ? " (app + PostgreSQL backends)" : "";

/** Every process `npm start` left running (each instance's process group), with its RSS. */
function footprint(apps: App[]): string {
  const rows = apps.flatMap((app, index) =>
    groupPids(app.child.pid!).map((pid) => {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const shown = command
        .map((part) => (part.includes("/") ? path.basename(part) : part))
        .join(" ")
        .slice(0, 70);
      return { rss, shown: apps.length > 1 ? `[${index + 1}] ${shown}` : shown };
    }),
  );
  const total = rows.reduce((sum, row) => sum + row.rss, 0);
  const each = apps.length > 1 ? ` (${Math.round(total / apps.length)} MB an instance)` : "";
  return `${Math.round(total)} MB${each} in ${rows.length} process(es): ${rows.map((row) => `${row.shown} ${Math.round(row.rss)} MB`).join("; ")}`;
}

// ---- the two HTTP clients; with several instances each request goes to the next one ----
type Client = { name: string; request(method: string, url: string, token?: string, body?: unknown): Promise<Reply> };

function fetchClient(apps: App[]): Client {
  let turn = 0;
  return {
    name: "fetch",
    async request(method, url, token, body) {
      const app = apps[turn++ % apps.length]!;
      const response = await fetch(`${app.baseUrl}${url}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
  };
}

function keptAlive(apps: App[]): Client & { close(): void } {
  const clients = apps.map((app) => keepAliveClient(app.baseUrl, WRITERS + 4));
  let turn = 0;
  return {
    name: "keep-alive",
    request: (...args) => clients[turn++ % clients.length]!.request(...args),
    close: () => {
      for (const client of clients) client.close();
    },
  };
}

async function call(client: Client, method: string, url: string, token: string, body?: unknown): Promise<any> {
  const reply = await client.request(method, url, token, body);
  if (reply.status < 200 || reply.status >= 300) throw new Error(`${method} ${url}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return reply.text ? JSON.parse(reply.text) : null;
}

async function timeSearches(
  apps: App[],
  client: Client,
  url: string,
  token: string,
  queries: string[],
  extra: Record<string, unknown> = {},
) {
  const times: number[] = [];
  let mode = "";
  const spent = await cpuMeter(apps);
  for (const query of queries) {
    const t = performance.now();
    const reply = await call(client, "POST", url, token, { query, limit: 10, ...extra });
    times.push(performance.now() - t);
    mode = reply.mode;
  }
  const cpu = `server CPU${CPU_NOTE} ${(spent() / queries.length).toFixed(2)} ms/search`;
  return { times, mode, cpu };
}

let written = 0;
/** Single writes: `clients` loops, each its own worker token, one memory per request. */
async function singleWrites(client: Client, tokens: string[], count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    tokens.map(async (token) => {
      while (next < count) {
        next++;
        const { name, content } = corpus.memory(TOTAL + written++);
        await call(client, "POST", "/api/worker/memories", token, { name, content });
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function batchedWrites(client: Client, count: number): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < count; done += 1000) {
    await Promise.all(
      [0, 1].map(() => {
        const items = Array.from({ length: 500 }, () => {
          const { name, content } = corpus.memory(TOTAL + written++);
          return { name, content, scope: "swarm" };
        });
        return call(client, "POST", "/api/v1/memories", adminToken, { items });
      }),
    );
  }
  return count / ((performance.now() - started) / 1000);
}

/** Waits until the server is idle (its start-up work, such as loading the keyword index, done), so that work is not counted as searches'. */
async function settled(apps: App[]) {
  const started = performance.now();
  for (;;) {
    const spent = await cpuMeter(apps);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (spent() < 100 * apps.length || performance.now() - started > 120_000) break;
  }
  console.log(`  (server idle ${((performance.now() - started) / 1000).toFixed(1)} s after it was healthy)`);
}

let ceilingShown = false;
/**
 * Single writes as measured above, each client against a server that does no work
 * (scripts/bench-http.ts, clientCeiling): the most that client can drive from this
 * machine, whatever the server spends. Shown once: it does not depend on the mode.
 */
async function writeCeilings(tokens: string[]) {
  for (const name of ["fetch", "keep-alive"] as const) {
    let client: (Client & { close?(): void }) | undefined;
    let turn = 0;
    const created = { status: 201, body: JSON.stringify({ ids: [TOTAL + written] }) };
    const { perSecond, clientCpuMs } = await clientCeiling({
      replies: { GET: created, POST: created },
      loops: tokens.length,
      seconds: 3,
      run: async (baseUrl) => {
        client ??= name === "fetch" ? fetchClient([{ baseUrl } as App]) : keptAlive([{ baseUrl } as App]);
        const { name: title, content } = corpus.memory(TOTAL + (turn++ % 1000));
        await client.request("POST", "/api/worker/memories", tokens[turn % tokens.length]!, { name: title, content });
      },
    });
    client?.close?.();
    console.log(
      `  client ceiling: single writes, ${tokens.length} clients, ${name.padEnd(10)} against a server that does no work: ${Math.round(perSecond)}/s, bench client CPU ${clientCpuMs.toFixed(2)} ms/write`,
    );
  }
}

/**
 * Searches and writes in one configuration. Each timed run of searches gets queries
 * of its own (`draw`): a query asked before would find its embedding in the server's
 * cache (lib/memory/search.ts, embedQuery) and its rows in memory, and the run after
 * the first would be measured without the provider's round trip.
 */
async function searchesAndWrites(apps: App[], tokens: string[], draw: (count: number) => string[], label: string) {
  await settled(apps);
  const clients = [fetchClient(apps), keptAlive(apps)];
  const worker = tokens[3]!;
  // Warm-up through each client (the first searches compile the code paths).
  for (const client of clients) {
    for (const query of draw(WARM_UP_SEARCHES * apps.length)) await call(client, "POST", "/api/worker/memories/search", worker, { query });
  }
  for (const client of clients) {
    const { times, mode, cpu } = await timeSearches(apps, client, "/api/worker/memories/search", worker, draw(QUERIES));
    console.log(`  agent's search (worker token, default mode → ${mode}), ${client.name.padEnd(10)} ${latency(times)}  ${cpu}`);
  }
  for (const mode of label === "keyword only" ? ["keyword"] : ["hybrid", "keyword"]) {
    const { times, cpu } = await timeSearches(apps, clients[0]!, "/api/v1/memories/search", adminToken, draw(QUERIES), { mode });
    console.log(`  operator's search (mode ${mode}), fetch      ${latency(times)}  ${cpu}`);
  }
  // Each client's writes are measured after a warm-up through it (V8 compiles the write
  // path on its first thousand calls; a server runs for days, not for a bench's minute).
  for (const client of clients) {
    await singleWrites(client, tokens.slice(0, WRITERS), WARM_UP_WRITES);
    const spent = await cpuMeter(apps);
    const rate = await singleWrites(client, tokens.slice(0, WRITERS), WRITES);
    const cpu = spent() / WRITES;
    console.log(
      `  single writes, ${WRITERS} clients, ${client.name.padEnd(10)} ${Math.round(rate)}/s (${WRITES} memories)  server CPU${CPU_NOTE} ${cpu.toFixed(2)} ms/write`,
    );
  }
  if (!ceilingShown) {
    ceilingShown = true;
    await writeCeilings(tokens.slice(0, WRITERS));
  }
  const count = Math.max(2000, Math.min(20_000, Math.round(TOTAL / 10 / 1000) * 1000));
  const spent = await cpuMeter(apps);
  const batched = await batchedWrites(clients[1]!, count);
  console.log(
    `  batched writes (500 a request, 2 in flight)   ${Math.round(batched)}/s  server CPU${CPU_NOTE} ${(spent() / count).toFixed(2)} ms/memory`,
  );
  (clients[1] as ReturnType<typeof keptAlive>).close();
  console.log(`  everything npm start left running, right after the writes: ${footprint(apps)}`);
  // What stays resident once the work is done (V8 gives back its young generation and compacts when idle).
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  console.log(`  everything npm start left running, after 15 s idle: ${footprint(apps)}`);
  console.log(`  load average: ${load()}`);
}

/** Where the in-process index benches place memory i: every fifth in the swarm, the rest spread over the agents. */
function placement(i: number): { scope: string; agentId: string | null } {
  return i % 5 === 0 ? { scope: "swarm", agentId: null } : { scope: "agent", agentId: `agent-${i % AGENTS}` };
}

/** The vector index alone at full scale, in this process: build time, search latency, recall of the exact top 10, size. */
function indexBench() {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const { name, content } = corpus.memory(i);
    vectors.push(fakeEmbedding(`${name}\n\n${content}`, DIMS));
  }
  const t1 = performance.now();
  const index = new VectorIndex(DIMS);
  // The center the server's loader sets (startIndexLoad in lib/memory/search-index.ts):
  // the mean of the first page's (2,000) unit vectors, none under 200.
  const sample = vectors.slice(0, 2000);
  const mean = new Float32Array(DIMS);
  for (const vector of sample) for (let d = 0; d < DIMS; d++) mean[d]! += vector[d]! / sample.length;
  if (sample.length >= 200) index.setCenter(mean);
  vectors.forEach((vector, i) => {
    index.add(i + 1, vector, placement(i));
  });
  const buildMs = performance.now() - t1;
  const random = rng(99);
  const times: number[] = [];
  const workerTimes: number[] = [];
  let hits = 0;
  const n = Math.min(QUERIES, 100);
  for (let q = 0; q < n; q++) {
    const vector = fakeEmbedding(corpus.query(random, TOTAL), DIMS);
    let t = performance.now();
    // What search.ts asks of the index: its best 300 estimates, re-ranked exactly after.
    const got = index.search(vector, { limit: 300, filter: { agent: true, swarm: true, agentCode: -1 } });
    times.push(performance.now() - t);
    t = performance.now();
    index.search(vector, { limit: 300, filter: { agent: true, swarm: true, agentCode: index.findAgentCode("agent-3") } });
    workerTimes.push(performance.now() - t);
    const exact = vectors
      .map((v, i) => ({ id: i + 1, c: cosine(vector, v) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, 10);
    const set = new Set(got.map((hit) => hit.id));
    hits += exact.filter((hit) => set.has(hit.id)).length;
  }
  console.log(
    `vector index in process: ${TOTAL} x ${DIMS} dims, built in ${(buildMs / 1000).toFixed(2)} s, ${Math.round(index.bytes / 1048576)} MB`,
  );
  console.log(
    `  search operator ${latency(times)}; worker view ${latency(workerTimes)}; exact top 10 within the best 300 estimates ${(hits / (n * 10)).toFixed(3)}`,
  );
}

/**
 * The keyword index alone at full scale, in this process, against FTS5's exhaustive
 * BM25 over the same memories: recall@10 (ties count) for the operator's view and
 * one agent's, the postings read against what FTS5 ranks, and latency.
 */
function keywordIndexBench() {
  const t0 = performance.now();
  const f = keywordFixture(corpus, TOTAL, placement);
  f.index.search(queryStems("warm"), 1, { agent: true, swarm: true, agentCode: -1 }); // builds its impact order
  const buildMs = performance.now() - t0;
  const random = rng(17);
  const views = [
    { name: "operator", filter: { agent: true, swarm: true, agentCode: -1 }, visibility: undefined, params: undefined },
    {
      name: "agent-3",
      filter: { agent: true, swarm: true, agentCode: f.index.findAgentCode("agent-3") },
      visibility: "(doc.scope = 'swarm' OR doc.agentId = ?)",
      params: ["agent-3"],
    },
  ];
  const n = Math.min(QUERIES, 200);
  for (const view of views) {
    let hits = 0;
    let wanted = 0;
    const times: number[] = [];
    const touched: number[] = [];
    const shares: number[] = [];
    for (let q = 0; q < n; q++) {
      const query = corpus.query(random, TOTAL);
      const t = performance.now();
      const got = f.index.search(queryStems(query), 10, view.filter);
      times.push(performance.now() - t);
      touched.push(f.index.lastTouched);
      const result = recall(f, query, got, view.visibility, view.params);
      hits += result.hits;
      wanted += result.wanted;
      shares.push(f.index.lastTouched / Math.max(1, result.matches));
    }
    console.log(
      `keyword index in process, ${view.name} view: recall@10 ${(hits / wanted).toFixed(3)} against FTS5's exhaustive BM25 (${n} queries); ${latency(times)}  max ${fmt(Math.max(...times))} ms; postings read p50 ${Math.round(percentile(touched, 50))}, max ${Math.max(...touched)} (budget ${MAX_TOUCHED}), ${(100 * percentile(shares, 50)).toFixed(1)}% of what FTS5 ranks at the median`,
    );
  }
  console.log(`  (${TOTAL} memories in FTS5 and the index, built in ${(buildMs / 1000).toFixed(1)} s)`);
  f.sqlite.close();
}

/** Waits until each instance's vector index answers (each instance keeps its own). */
async function vectorIndexReady(apps: App[], query: string) {
  const started = performance.now();
  for (const app of apps) {
    const client = fetchClient([app]);
    while ((await call(client, "POST", "/api/v1/memories/search", adminToken, { query, mode: "vector" })).mode !== "vector") {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return performance.now() - started;
}

async function main() {
  const where = STORE === "sqlite" ? "SQLite" : `PostgreSQL, ${INSTANCES} instance(s)`;
  console.log(
    `memory bench on ${where}: ${TOTAL} memories (Zipf, 5,000 words), ${DIMS} dims, ${QUERIES} queries; load average ${load()} on ${spawnSync("nproc", { encoding: "utf8" }).stdout.trim()} cores`,
  );
  if (values.index || values["index-only"]) {
    indexBench();
    keywordIndexBench();
    if (values["index-only"]) {
      rmSync(dataDir, { recursive: true, force: true });
      return;
    }
  }
  const database = STORE === "postgresql" ? await createPostgresDatabase("swarmdeck_bench") : undefined;
  dropDatabase = database?.drop;
  const databaseUrl = database?.url ?? `file:${path.join(dataDir, "bench.db")}`;
  const fake = await startFakeOpenAI();
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    SWARMDECK_DATA_DIR: dataDir,
    // Shared by every instance (on PostgreSQL the start requires both: lib/env.ts).
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    SWARMDECK_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    SWARMDECK_ADMIN_EMAIL: "admin@bench.local",
    SWARMDECK_ADMIN_PASSWORD: "correct-horse-battery",
    SWARMDECK_ADMIN_TOKEN: adminToken,
    // The writers store far more than an agent's hourly quota (600) in a minute.
    SWARMDECK_WORKER_MEMORIES_PER_HOUR: "1000000",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  // The provider's model is the one the seed's vectors are marked with: a server finding
  // vectors of another model queues every memory to be embedded again (lib/memory/embedder.ts),
  // and the provider's figures would be taken while it re-embeds the whole corpus.
  const withProvider = {
    ...base,
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: "sk-bench",
    EMBEDDING_MODEL: SEED_MODEL,
    EMBEDDING_DIMENSIONS: String(DIMS),
  };
  migrateDeploy(base);
  await seedDirect(databaseUrl);
  if (database) {
    observer = new pg.Client({ connectionString: databaseUrl });
    await observer.connect();
  }

  const { OPENAI_BASE_URL: _url, OPENAI_API_KEY: _key, ...noProvider } = withProvider;
  const keywordOnly = { ...noProvider, SWARMDECK_LOCAL_EMBEDDER: "off" };
  const first = MODES.has("provider") ? withProvider : MODES.has("keyword") ? keywordOnly : noProvider;
  let apps = await startApps(first, "first start: migrations, seed");
  let config: NodeJS.ProcessEnv = first;
  let startedAt = performance.now();
  /** The instances on `config`: the ones running, or new ones on the same database. */
  const switchTo = async (next: NodeJS.ProcessEnv, what: string) => {
    if (config === next) return;
    await stopApps(apps);
    apps = await startApps(next, what);
    config = next;
    startedAt = performance.now();
  };
  const admin = fetchClient(apps);
  const tokens: string[] = [];
  for (let i = 0; i < WRITERS; i++)
    tokens.push((await call(admin, "POST", `/api/v1/agents/benchagent${i}/tokens`, adminToken, { name: "bench" })).token);
  const random = rng(99);
  const draw = (count: number) => Array.from({ length: count }, () => corpus.query(random, TOTAL));
  const probe = draw(1)[0]!;

  if (MODES.has("provider")) {
    const ready = await vectorIndexReady(apps, probe);
    console.log(`vector index ready ${(ready / 1000).toFixed(1)} s after the first search asked for it`);
    console.log(`with an embedding provider (${TOTAL} memories):`);
    await searchesAndWrites(apps, tokens, draw, "hybrid");
  }

  if (MODES.has("keyword")) {
    await switchTo(keywordOnly, "restart on the same database, no provider");
    console.log(`keyword only (no provider):`);
    await searchesAndWrites(apps, tokens, draw, "keyword only");
  }

  if (MODES.has("embedded")) {
    // The default a new install gets: no provider, the embedded word-vector embedder
    // (every memory is embedded again locally, in the background, before measuring).
    await switchTo(noProvider, "restart, the embedded default");
    const localAdmin = fetchClient(apps);
    for (;;) {
      const health = await call(localAdmin, "GET", "/api/v1/memories/health?days=1", adminToken);
      if (health.totals.pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await vectorIndexReady(apps, probe);
    // Timed from the start: the local embedder begins re-embedding the corpus as the server comes up.
    console.log(
      `embedded default: ${TOTAL} memories embedded locally and indexed in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    console.log(`embedded default (no provider, local word vectors):`);
    await searchesAndWrites(apps, tokens, draw, "embedded default");
  }
  await stopApps(apps);
  await fake.stop();
  await observer?.end();
  observer = null;
  await database?.drop();
  dropDatabase = undefined;
  rmSync(dataDir, { recursive: true, force: true });
}

/** Drops the PostgreSQL bench database when the run stops early. */
let dropDatabase: (() => Promise<void>) | undefined;

function stopRunning() {
  for (const app of running) {
    try {
      process.kill(-app.child.pid!, "SIGTERM");
    } catch {}
  }
}

process.on("exit", stopRunning);

main().catch(async (error) => {
  console.error(error);
  stopRunning();
  await observer?.end().catch(() => {});
  // The instances let go of the database before it can be dropped (DROP ... WITH (FORCE) would cut them anyway).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await dropDatabase?.().catch(() => {});
  process.exit(1);
});
