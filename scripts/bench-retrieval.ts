// npm run bench:retrieval: retrieval quality on the labelled set of
// tests/fixtures/memory/retrieval (311 memories, 174 queries in four kinds,
// split by topic into a dev half and a test half). For each configuration the
// production server starts on a fresh database, the set is stored for one agent,
// and every query goes through the agent's own path (POST
// /api/worker/memories/search with its worker token). Prints hit@5 and MRR@10
// per kind and half, plus a crude shared-word count as the floor.
//
// Configurations: keyword (the embedded default switched off), embedded (no
// provider: the default a new install gets), hybrid (the OpenAI-compatible
// stand-in of tests/support/fake-openai.ts). Env: BENCH_CONFIGS=embedded,hybrid
// to run some; BENCH_HALF=dev|test|both (default both); BENCH_MISSES=1 to list
// the dev half's misses (never tune on the test half's); BENCH_TRANSPORT=direct
// to call the search function in process instead of over HTTP (no build; for
// tuning; scripts/retrieval-direct.ts).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Api, agentWithToken, apiClient, waitFor } from "../tests/fixtures/memory/http";
import { KINDS, MEMORIES, QUERIES, type QueryKind, type SetQuery } from "../tests/fixtures/memory/retrieval";
import { startFakeOpenAI } from "../tests/support/fake-openai";
import { startTestServer } from "../tests/support/test-server";
import { migrateDeploy } from "./launch";
import { sharedWordRanking } from "./retrieval-floor";

type Config = { name: string; env: (fakeUrl: string) => Record<string, string> };
const CONFIGS: Config[] = [
  { name: "keyword", env: () => ({ SWARMDECK_LOCAL_EMBEDDER: "off" }) },
  { name: "embedded", env: () => ({}) },
  { name: "hybrid", env: (url) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-bench", EMBEDDING_DIMENSIONS: "512" }) },
];
const LIMIT = 10;

type Ranked = { query: SetQuery; rank: number | null; top: string[] };

function report(label: string, ranked: Ranked[]) {
  const halves = (process.env.BENCH_HALF ?? "both") === "both" ? ["dev", "test"] : [process.env.BENCH_HALF!];
  for (const half of halves) {
    const mine = ranked.filter((r) => r.query.half === half);
    const cell = (rows: Ranked[]) => {
      const hit = rows.filter((r) => r.rank !== null && r.rank < 5).length / Math.max(1, rows.length);
      const mrr = rows.reduce((sum, r) => sum + (r.rank === null ? 0 : 1 / (r.rank + 1)), 0) / Math.max(1, rows.length);
      return `${hit.toFixed(2)} / ${mrr.toFixed(2)}`.padEnd(13);
    };
    const perKind = KINDS.map((kind: QueryKind) => cell(mine.filter((r) => r.query.kind === kind)));
    console.log(`${label.padEnd(10)} ${half.padEnd(5)} ${perKind.join(" ")} ${cell(mine)} (${mine.length} queries)`);
  }
}

function header() {
  console.log(`\nhit@5 / MRR@${LIMIT}        ${[...KINDS, "overall"].map((k) => k.padEnd(13)).join(" ")}`);
}

async function seed(admin: Api) {
  const { agent, token } = await agentWithToken(admin);
  const ids: number[] = [];
  for (let i = 0; i < MEMORIES.length; i += 200) {
    const items = MEMORIES.slice(i, i + 200).map((m) => ({
      name: m.name,
      content: m.content,
      source: m.source,
      scope: "agent",
      agentId: agent.id,
    }));
    const reply = await admin.post("/api/v1/memories", { items });
    if (reply.status !== 201) throw new Error(`seeding failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    ids.push(...(reply.body.ids as number[]));
  }
  if (ids.length !== MEMORIES.length) throw new Error(`expected ${MEMORIES.length} ids, got ${ids.length}`);
  return { token, keyOf: new Map(ids.map((id, i) => [id, MEMORIES[i]!.key])) };
}

async function run(config: Config, fakeUrl: string): Promise<Ranked[]> {
  const server = await startTestServer({ env: config.env(fakeUrl) });
  try {
    const admin = apiClient(server.baseUrl, server.adminToken);
    const { token, keyOf } = await seed(admin);
    // Embedded in the background by the provider or the embedded default; the keyword configuration has none pending.
    await waitFor("embeddings", async () => (await admin.get("/api/v1/memories/health?days=1")).body.totals.pending === 0, 120_000);
    const worker = apiClient(server.baseUrl, token);
    const ranked: Ranked[] = [];
    const modes = new Map<string, number>();
    for (const query of QUERIES) {
      const reply = await worker.post("/api/worker/memories/search", { query: query.query, limit: LIMIT });
      if (reply.status !== 200) throw new Error(`search failed: ${reply.status} ${JSON.stringify(reply.body)}`);
      const mode = String(reply.body.mode);
      modes.set(mode, (modes.get(mode) ?? 0) + 1);
      const top = (reply.body.results as { id: number }[]).map((r) => keyOf.get(r.id) ?? "?");
      const rank = top.indexOf(query.expect);
      ranked.push({ query, rank: rank >= 0 ? rank : null, top });
    }
    console.log(`${config.name}: answered in mode ${[...modes].map(([m, n]) => `${m} x${n}`).join(", ")}`);
    return ranked;
  } finally {
    await server.stop();
  }
}

/** The same set through the search function in a child process (BENCH_TRANSPORT=direct). */
async function runDirect(config: Config, fakeUrl: string): Promise<Ranked[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-retrieval-"));
  try {
    const env = {
      ...process.env,
      DATABASE_URL: `file:${path.join(dataDir, "bench.db")}`,
      SWARMDECK_DATA_DIR: dataDir,
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      ...config.env(fakeUrl),
    };
    migrateDeploy({ ...env, PRISMA_HIDE_UPDATE_MESSAGE: "1" });
    // Not spawnSync: the fake provider answers from this process's event loop.
    const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/retrieval-direct.ts"], {
      cwd: path.resolve(import.meta.dirname, ".."),
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const status = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (status !== 0) throw new Error(`${config.name}: exit ${status}`);
    const lines = stdout.trim().split("\n");
    const answers = JSON.parse(lines[lines.length - 1]!) as { top: string[]; mode: string }[];
    const modes = new Map<string, number>();
    for (const answer of answers) modes.set(answer.mode, (modes.get(answer.mode) ?? 0) + 1);
    console.log(`${config.name}: answered in mode ${[...modes].map(([m, n]) => `${m} x${n}`).join(", ")}`);
    return QUERIES.map((query, i) => {
      const top = answers[i]!.top;
      const rank = top.indexOf(query.expect);
      return { query, rank: rank >= 0 ? rank : null, top };
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function listMisses(label: string, ranked: Ranked[]) {
  for (const r of ranked.filter((x) => x.query.half === "dev" && (x.rank === null || x.rank >= 5)))
    console.log(`  [${label}] ${r.query.kind} miss: "${r.query.query}" -> want ${r.query.expect}, got ${r.top.slice(0, 5).join(", ")}`);
}

async function main() {
  const wanted = (process.env.BENCH_CONFIGS ?? CONFIGS.map((c) => c.name).join(",")).split(",");
  const fake = await startFakeOpenAI();
  const results: [string, Ranked[]][] = [];
  try {
    const floor = QUERIES.map((query) => {
      const top = sharedWordRanking(query.query, MEMORIES, LIMIT);
      const rank = top.indexOf(query.expect);
      return { query, rank: rank >= 0 ? rank : null, top };
    });
    results.push(["shared-word", floor]);
    for (const config of CONFIGS.filter((c) => wanted.includes(c.name)))
      results.push([
        config.name,
        process.env.BENCH_TRANSPORT === "direct" ? await runDirect(config, fake.url) : await run(config, fake.url),
      ]);
  } finally {
    await fake.stop();
  }
  console.log(
    `\n${MEMORIES.length} memories; ${QUERIES.length} queries (dev ${QUERIES.filter((q) => q.half === "dev").length}, test ${QUERIES.filter((q) => q.half === "test").length})`,
  );
  header();
  for (const [label, ranked] of results) report(label, ranked);
  if (process.env.BENCH_MISSES === "1") for (const [label, ranked] of results.slice(1)) listMisses(label, ranked);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
