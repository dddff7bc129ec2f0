// `npm run bench:metrics`: seeds a database with 1,000,000 finished tasks and
// their events (raw SQL in big transactions, rollups written by the app's own
// lib/metrics/rollup.ts in the same transactions), starts the production server
// on it, and prints the overview endpoint's p50/p95, the other metric endpoints'
// timings and the /metrics page's server render time. While it measures, a
// writer keeps finishing new tasks (task row, events and rollup in one
// transaction, as the task code does); at the end every rollup row is checked
// against a recount of the Task table.
//
// Options (env): BENCH_TASKS (default 1000000), BENCH_AGENTS (20), BENCH_DAYS (365),
// BENCH_REQUESTS (200 per overview variant).
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { recordTaskRollup } from "../lib/metrics/rollup";
import { startTestServer } from "../tests/support/test-server";
import { migrateDeploy } from "./launch";

const TASKS = Number(process.env.BENCH_TASKS) || 1_000_000;
const AGENTS = Number(process.env.BENCH_AGENTS) || 20;
const DAYS = Number(process.env.BENCH_DAYS) || 365;
const REQUESTS = Number(process.env.BENCH_REQUESTS) || 200;
const DAY = 86_400_000;

const REASONS = [
  (n: number) => `Timeout after ${n}s waiting for the test runner`,
  (n: number) => `Exit code ${n % 256}`,
  (n: number) => `npm ERR! 404 Not Found - GET https://registry.npmjs.org/pkg-${n}`,
  (n: number) => `Merge conflict in src/module-${n % 40}.ts`,
  () => "The agent gave up: the task description is ambiguous",
  (n: number) => `Out of memory (heap ${n} MB)`,
];

let seed = 42;
function random(): number {
  // mulberry32: a fixed seed so two runs seed the same history
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const id = (prefix: string, n: number) => `${prefix}${n.toString(36).padStart(8, "0")}${randomBytes(4).toString("hex")}`;

function seedDatabase(file: string, now: number) {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = OFF");
  const agents: string[] = [];
  const souls = new Map<string, Array<{ id: string; at: number }>>();
  const insertAgent = sqlite.prepare("INSERT INTO Agent (id, name, displayName, role, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)");
  const insertFile = sqlite.prepare(
    "INSERT INTO IdentityFile (id, agentId, kind, currentVersionId, createdAt, updatedAt) VALUES (?, ?, 'SOUL', NULL, ?, ?)",
  );
  const insertVersion = sqlite.prepare(
    `INSERT INTO IdentityVersion (id, fileId, agentId, kind, number, content, contentHash, size, parentVersionId, authorType, source, createdAt)
     VALUES (?, ?, ?, 'SOUL', ?, ?, ?, ?, ?, 'operator', ?, ?)`,
  );
  sqlite.transaction(() => {
    for (let a = 0; a < AGENTS; a += 1) {
      const agentId = id("agent", a);
      agents.push(agentId);
      const created = now - (DAYS + 1) * DAY;
      insertAgent.run(agentId, `bench-agent-${a}`, `Bench agent ${a}`, a === 0 ? "lead" : "worker", created, created);
      const fileId = id("file", a);
      insertFile.run(fileId, agentId, created, created);
      const versions: Array<{ id: string; at: number }> = [];
      let parent: string | null = null;
      for (let v = 1; v <= 4; v += 1) {
        const at = created + ((v - 1) * (DAYS * DAY)) / 4;
        const versionId = id("ver", a * 10 + v);
        const content = `# Soul of bench agent ${a}\nVersion ${v}.\n`;
        insertVersion.run(
          versionId,
          fileId,
          agentId,
          v,
          content,
          `h${versionId}`,
          content.length,
          parent,
          v === 1 ? "editor" : "approved_proposal",
          at,
        );
        versions.push({ id: versionId, at });
        parent = versionId;
      }
      souls.set(agentId, versions);
    }
  })();

  const insertTask = sqlite.prepare(
    `INSERT INTO Task (id, title, status, agentId, attempts, claimedAt, finishedAt, failureReason, soulVersionId, createdAt, updatedAt)
     VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
  );
  const insertEvent = sqlite.prepare("INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, createdAt) VALUES (?, ?, ?, ?, ?)");
  const started = Date.now();
  const BATCH = 50_000;
  for (let done = 0; done < TASKS; done += BATCH) {
    sqlite.transaction(() => {
      for (let i = done; i < Math.min(done + BATCH, TASKS); i += 1) {
        const agentId = agents[Math.floor(random() * AGENTS)] as string;
        const finishedAt = now - Math.floor(random() * DAYS * DAY) - 60_000;
        const roll = random();
        const status = roll < 0.8 ? "completed" : roll < 0.95 ? "failed" : "cancelled";
        const durationMs = Math.round(Math.exp(9 + random() * 5)); // about 8 s to 22 min
        const claimedAt = finishedAt - durationMs;
        const createdAt = claimedAt - Math.floor(random() * 600_000);
        const soul = (souls.get(agentId) ?? []).filter((v) => v.at <= claimedAt).at(-1)?.id ?? null;
        const reason = status === "failed" ? (REASONS[i % REASONS.length] as (n: number) => string)(Math.floor(random() * 1000)) : null;
        const taskId = id("task", i);
        insertTask.run(taskId, `Bench task ${i}`, status, agentId, claimedAt, finishedAt, reason, soul, createdAt, finishedAt);
        insertEvent.run(taskId, "created", null, "pending", createdAt);
        insertEvent.run(taskId, "claimed", "pending", "in_progress", claimedAt);
        insertEvent.run(taskId, "status", "in_progress", status, finishedAt);
        recordTaskRollup(sqlite, { kind: "created", agentId, at: createdAt });
        recordTaskRollup(sqlite, { kind: status as "completed" | "failed" | "cancelled", agentId, at: finishedAt, durationMs });
      }
    })();
    process.stdout.write(`\r  seeded ${Math.min(done + BATCH, TASKS).toLocaleString()} tasks`);
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`\r  seeded ${TASKS.toLocaleString()} tasks, ${(TASKS * 3).toLocaleString()} events in ${seconds.toFixed(1)} s`);
  sqlite.pragma("wal_checkpoint(TRUNCATE)");
  sqlite.exec("ANALYZE");
  sqlite.close();
  return agents;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

async function time(url: string, headers: Record<string, string>): Promise<number> {
  const start = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - start;
}

async function measure(label: string, url: string, headers: Record<string, string>, count: number) {
  for (let i = 0; i < 5; i += 1) await time(url, headers); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) samples.push(await time(url, headers));
  const row = { label, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), max: Math.max(...samples) };
  console.log(
    `  ${label.padEnd(44)} p50 ${row.p50.toFixed(1).padStart(7)} ms   p95 ${row.p95.toFixed(1).padStart(7)} ms   max ${row.max.toFixed(1).padStart(7)} ms`,
  );
  return { ...row, samples };
}

async function signInCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, ...value] = (pair ?? "").split("=");
      if (name) jar.set(name.trim(), value.join("="));
    }
  };
  keep(csrf);
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const login = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader() },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  keep(login);
  if (![...jar.keys()].some((name) => name.includes("session-token"))) throw new Error(`sign-in failed (${login.status})`);
  return cookieHeader();
}

/** Finishes tasks continuously (one transaction each: task, events, rollup) until stopped. */
function startWriter(file: string, agents: string[]) {
  const sqlite = new Database(file);
  sqlite.pragma("busy_timeout = 5000");
  const insertTask = sqlite.prepare(
    `INSERT INTO Task (id, title, status, agentId, attempts, claimedAt, finishedAt, failureReason, createdAt, updatedAt) VALUES (?, 'live task', ?, ?, 1, ?, ?, ?, ?, ?)`,
  );
  const insertEvent = sqlite.prepare("INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, createdAt) VALUES (?, ?, ?, ?, ?)");
  let written = 0;
  let stopped = false;
  const finishOne = sqlite.transaction((n: number) => {
    const now = Date.now();
    const agentId = agents[n % agents.length] as string;
    const status = n % 4 === 0 ? "failed" : "completed";
    const durationMs = 5_000 + (n % 50) * 1000;
    const taskId = id("live", n);
    insertTask.run(
      taskId,
      status,
      agentId,
      now - durationMs,
      now,
      status === "failed" ? `Exit code ${n % 7}` : null,
      now - durationMs - 1000,
      now,
    );
    insertEvent.run(taskId, "created", null, "pending", now - durationMs - 1000);
    insertEvent.run(taskId, "status", "in_progress", status, now);
    recordTaskRollup(sqlite, { kind: "created", agentId, at: now - durationMs - 1000 });
    recordTaskRollup(sqlite, { kind: status, agentId, at: now, durationMs });
  });
  const loop = async () => {
    while (!stopped) {
      finishOne(written);
      written += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const running = loop();
  return {
    async stop() {
      stopped = true;
      await running;
      return written;
    },
    sqlite,
  };
}

function verifyRollups(sqlite: Database.Database) {
  const recount = sqlite
    .prepare(
      `SELECT day, agentId, sum(created) AS created, sum(completed) AS completed, sum(failed) AS failed, sum(cancelled) AS cancelled, sum(dur) AS dur, sum(durCount) AS durCount FROM (
         SELECT strftime('%Y-%m-%d', createdAt / 1000, 'unixepoch') AS day, coalesce(agentId, '') AS agentId, 1 AS created, 0 AS completed, 0 AS failed, 0 AS cancelled, 0 AS dur, 0 AS durCount FROM Task
         UNION ALL
         SELECT strftime('%Y-%m-%d', finishedAt / 1000, 'unixepoch'), coalesce(agentId, ''), 0, status = 'completed', status = 'failed', status = 'cancelled',
                CASE WHEN status = 'completed' THEN finishedAt - claimedAt ELSE 0 END, status = 'completed'
           FROM Task WHERE finishedAt IS NOT NULL
       ) GROUP BY day, agentId`,
    )
    .all() as Array<Record<string, number | string>>;
  const rollups = new Map(
    (
      sqlite
        .prepare(
          "SELECT day, agentId, created, completed, failed, cancelled, durationSumMs, durationCount, durationHist FROM TaskDailyRollup",
        )
        .all() as Array<Record<string, number | string>>
    ).map((row) => [`${row.day}|${row.agentId}`, row]),
  );
  let mismatches = 0;
  for (const row of recount) {
    const rollup = rollups.get(`${row.day}|${row.agentId}`);
    const hist = rollup ? (JSON.parse(String(rollup.durationHist)) as number[]).reduce((a, b) => a + b, 0) : -1;
    const same =
      rollup &&
      rollup.created === row.created &&
      rollup.completed === row.completed &&
      rollup.failed === row.failed &&
      rollup.cancelled === row.cancelled &&
      rollup.durationCount === row.durCount &&
      hist === row.durCount &&
      Math.abs(Number(rollup.durationSumMs) - Number(row.dur)) < 1e-3;
    if (!same) mismatches += 1;
    rollups.delete(`${row.day}|${row.agentId}`);
  }
  return { rows: recount.length, mismatches: mismatches + rollups.size };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-bench-"));
  const dbFile = path.join(dataDir, "test.db");
  console.log(`Benchmark database: ${dbFile}`);
  migrateDeploy({ ...process.env, DATABASE_URL: `file:${dbFile}` });
  const now = Date.now();
  const agents = seedDatabase(dbFile, now);

  console.log("Starting the production server on it ...");
  const server = await startTestServer({ dataDir, env: { SWARMDECK_ALERT_INTERVAL_MS: "5000" } });
  const writer = startWriter(dbFile, agents);
  try {
    const auth = { authorization: `Bearer ${server.adminToken}` };
    const today = new Date(now).toISOString().slice(0, 10);
    const ago = (days: number) => new Date(now - days * DAY).toISOString().slice(0, 10);
    const base = `${server.baseUrl}/api/v1/metrics`;
    console.log(
      `\nOverview (${TASKS.toLocaleString()} tasks, ${AGENTS} agents, ${DAYS} days; ${REQUESTS} sequential requests each; tasks finishing meanwhile):`,
    );
    const overview = [
      await measure("overview, default (last 30 days)", `${base}/overview`, auth, REQUESTS),
      await measure("overview, 90 days, one agent", `${base}/overview?from=${ago(89)}&to=${today}&agentId=${agents[3]}`, auth, REQUESTS),
      await measure("overview, 365 days, whole swarm", `${base}/overview?from=${ago(364)}&to=${today}`, auth, REQUESTS),
    ];
    const all = overview.flatMap((row) => row.samples);
    console.log(
      `  ${"overview, all of the above".padEnd(44)} p50 ${percentile(all, 0.5).toFixed(1).padStart(7)} ms   p95 ${percentile(all, 0.95).toFixed(1).padStart(7)} ms   (target p95 < 150 ms)`,
    );

    console.log("\nChart endpoints (last 30 days, 50 requests each):");
    for (const name of ["tasks", "failures", "identity", "proposals", "memory"]) await measure(name, `${base}/${name}`, auth, 50);
    await measure("soul-outcomes (one agent, all time)", `${base}/soul-outcomes?agentId=${agents[3]}`, auth, 20);
    await measure("weekly-report", `${base}/weekly-report`, auth, 50);

    console.log("\n/metrics page, server render (signed-in session, full HTML response):");
    const cookie = await signInCookie(server.baseUrl, server.adminEmail, server.adminPassword);
    await measure("GET /metrics", `${server.baseUrl}/metrics`, { cookie }, 50);

    // The writer stops first, so the overview, the recount and the rollup check all see the same tasks.
    const written = await writer.stop();
    const overviewAll = (await (
      await fetch(`${base}/overview?from=${ago(DAYS)}&to=${today}`, { headers: { ...auth, connection: "close" } })
    ).json()) as {
      tasks: { completed: number; failed: number; cancelled: number };
    };
    const truth = writer.sqlite
      .prepare(
        "SELECT sum(status = 'completed') AS completed, sum(status = 'failed') AS failed, sum(status = 'cancelled') AS cancelled FROM Task WHERE finishedAt >= ?",
      )
      .get(Date.parse(`${ago(DAYS)}T00:00:00Z`)) as { completed: number; failed: number; cancelled: number };
    const check = verifyRollups(writer.sqlite);
    console.log(`\nExactness: ${written} tasks finished during the bench.`);
    console.log(`  rollup rows checked against a recount of Task: ${check.rows}, mismatches: ${check.mismatches}`);
    console.log(`  overview over all days: ${JSON.stringify(overviewAll.tasks)}`);
    console.log(`  recount of the Task table: completed ${truth.completed}, failed ${truth.failed}, cancelled ${truth.cancelled}`);
    const exact =
      check.mismatches === 0 &&
      overviewAll.tasks.completed === truth.completed &&
      overviewAll.tasks.failed === truth.failed &&
      overviewAll.tasks.cancelled === truth.cancelled;
    console.log(exact ? "  EXACT: the rollups match the tasks." : "  NOT EXACT: see the mismatches above.");
    writer.sqlite.close();
    if (!exact) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
