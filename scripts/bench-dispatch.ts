import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { startTestServer, type TestServer } from "../tests/support/test-server";
import {
  clientCeiling,
  clientPauses,
  cpuSince,
  describeCollections,
  describePauses,
  keepAliveClient,
  type Pause,
  parseReply,
  parseStoreOptions,
  pausedWithin,
  STORE_OPTIONS,
} from "./bench-http";

const { values } = parseArgs({
  options: {
    /** 30 workers draining 1,000 pool tasks a round: the swarm the dispatch targets are set for (README, Benchmarks). */
    workers: { type: "string", default: "30" },
    tasks: { type: "string", default: "1000" },
    wait: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    profile: { type: "string" },
    /** keep-alive: the tuned node:http client; fetch: plain fetch, as any worker might call; both: one after the other. */
    client: { type: "string", default: "both" },
    /** Time the server's SQLite statements in each round (SQLite only; off by default: about 7% of the main thread's busy time in one profiled round, docs/benchmarks.md). */
    statements: { type: "boolean", default: false },
    ...STORE_OPTIONS,
  },
});
const { store: STORE, instances: INSTANCES } = parseStoreOptions(values);
process.env.SWARMDECK_TEST_STORE = STORE;
const WORKERS = Number(values.workers);
const TASKS = Number(values.tasks);
const WAIT_MS = Number(values.wait);
const ROUNDS = Number(values.rounds);
const STATEMENTS = values.statements === true;
/** The dispatch target (README, "Dispatch"): at least this many cycles per s with a poll p99 under TARGET_P99_MS, in every round. */
const TARGET_CYCLES_PER_S = 1500;
const TARGET_P99_MS = 30;
if (STATEMENTS && STORE !== "sqlite") throw new Error("--statements: SQLite only (PostgreSQL runs its statements in its own processes)");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** How long each span (performance.now() times) took, less the time `pauses` took within it, shortest first. */
function sortedLengths(spans: Array<[number, number]>, pauses: Pause[] = []): number[] {
  return spans.map(([from, to]) => to - from - pausedWithin(pauses, from, to)).sort((a, b) => a - b);
}

/** The server's processes: those started with this test database in their environment. */
function serverPids(databaseUrl: string): number[] {
  const marker = `DATABASE_URL=${databaseUrl}`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(marker)) pids.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

/**
 * What the app servers' probes (scripts/bench-server-probe.cjs) recorded of a round
 * once signalled, one line per server: its garbage collections, and with
 * `--statements` its SQLite statements. Every collection pauses the requests in
 * flight, and so does a long statement (better-sqlite3 runs them on the event loop),
 * so both show in the p99.
 */
async function roundInServers(
  file: string,
  round: number,
  servers: number,
): Promise<{ collections: string; statements: string | null; busiest: string | null }> {
  type Statement = { sql: string; ms: number };
  type Line = {
    round: number;
    young: number[];
    full: number[];
    other: number;
    statements?: { ms: number; longest: Statement[]; most: Array<Statement & { count: number }> };
  };
  let lines: Line[] = [];
  for (const deadline = performance.now() + 3000; performance.now() < deadline; ) {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    // Only whole lines: a probe may be writing one right now.
    lines = text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.round === round);
    if (lines.length >= servers) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (lines.length === 0) return { collections: "not recorded", statements: null, busiest: null };
  const young = lines.flatMap((line) => line.young);
  const full = lines.flatMap((line) => line.full);
  const other = lines.reduce((total, line) => total + line.other, 0);
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const collections = [
    describeCollections(young, full, other),
    ...(lines.length < servers ? [`from ${lines.length} of ${servers} servers`] : []),
  ].join("; ");
  // PostgreSQL's statements run in its own processes (their CPU is in the round's figures).
  const longest = lines
    .flatMap((line) => line.statements?.longest ?? [])
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3);
  if (longest.length === 0) return { collections, statements: null, busiest: null };
  const statementMs = sum(lines.map((line) => line.statements?.ms ?? 0));
  // The statements that took the most time together, over the servers that timed theirs.
  const most = new Map<string, { ms: number; count: number }>();
  for (const { sql, ms, count } of lines.flatMap((line) => line.statements?.most ?? [])) {
    const total = most.get(sql) ?? { ms: 0, count: 0 };
    most.set(sql, { ms: total.ms + ms, count: total.count + count });
  }
  const busiest = [...most]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 5)
    .map(([sql, { ms, count }]) => `${ms} ms ${sql} (${count} times)`);
  return {
    collections,
    statements: [
      `${statementMs.toFixed(0)} ms in all${lines.length > 1 ? ` (${lines.length} servers together)` : ""}`,
      `the longest ${longest.map((s) => `${s.ms.toFixed(1)} ms (${s.sql})`).join(", ")}`,
      ...(lines.length < servers ? [`from ${lines.length} of ${servers} servers`] : []),
    ].join("; "),
    busiest: busiest.length > 0 ? busiest.join(", ") : null,
  };
}

/** PostgreSQL's backend processes serving this database (they do the store's work on PostgreSQL). */
async function postgresPids(databaseUrl: string): Promise<number[]> {
  if (STORE !== "postgresql") return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

function signalAll(pids: number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited
    }
  }
}

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** The benches' kept-alive node:http client (scripts/bench-http.ts) as a Call. */
function keptAliveCall(client: ReturnType<typeof keepAliveClient>): Call {
  return async (method, path, token, body) => {
    const reply = await client.request(method, path, token, body);
    return { status: reply.status, body: parseReply(reply) };
  };
}

/** Plain fetch, as a worker written against the protocol would call (undici's default connection pool). */
function fetchCall(baseUrl: string): Call {
  return async (method, path, token, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: parseReply({ status: response.status, text: await response.text() }) };
  };
}

/** A rate below the target, rounded down so that it never reads as the target itself (1,499.6 is "1499", not "1500"). */
const below = (perSecond: number) => Math.floor(perSecond).toFixed(0);

/** One line: in how many rounds the target was met, which fell short and by what, and whether the client alone could reach it here. */
function verdict(rounds: Array<{ round: number; perSecond: number; p99: number }>, ceilingPerSecond: number | undefined): string {
  const short = rounds.filter(({ perSecond, p99 }) => !(perSecond >= TARGET_CYCLES_PER_S && p99 < TARGET_P99_MS));
  const shortfalls = short.map(({ round, perSecond, p99 }) =>
    [
      `round ${round}:`,
      ...(perSecond < TARGET_CYCLES_PER_S ? [`${below(perSecond)} cycles/s`] : []),
      ...(p99 < TARGET_P99_MS ? [] : [`p99 ${p99.toFixed(1)} ms`]),
    ].join(" "),
  );
  const client =
    ceilingPerSecond === undefined
      ? ""
      : ceilingPerSecond < TARGET_CYCLES_PER_S
        ? `; the client alone reached ${below(ceilingPerSecond)} cycles/s, under ${TARGET_CYCLES_PER_S}: this machine cannot show the target with this client, whatever the server spends`
        : `; the client alone reached ${ceilingPerSecond.toFixed(0)} cycles/s`;
  return `target (at least ${TARGET_CYCLES_PER_S} cycles/s and a poll p99 under ${TARGET_P99_MS} ms in every round): met in ${rounds.length - short.length} of ${rounds.length} rounds${shortfalls.length > 0 ? ` (short: ${shortfalls.join("; ")})` : ""}${client}`;
}

async function main() {
  const clients = values.client === "both" ? ["keep-alive", "fetch"] : [values.client ?? "keep-alive"];
  for (const name of clients) {
    if (name !== "keep-alive" && name !== "fetch") throw new Error(`--client ${name}: keep-alive, fetch or both`);
    console.log(`\n== client: ${name === "fetch" ? "plain fetch" : "kept-alive node:http"} ==`);
    await run(name);
  }
}

async function run(clientName: "keep-alive" | "fetch") {
  console.log(`Starting the app (production build, temporary database) ...`);
  // The probe (scripts/bench-server-probe.cjs) records each round's garbage collections
  // in the server into gcFile; --profile DIR also has it write a V8 CPU profile to DIR.
  const gcFile = path.join(tmpdir(), `swarmdeck-bench-gc-${process.pid}-${Date.now()}.jsonl`);
  const probe = `--require ${JSON.stringify(path.join(import.meta.dirname, "bench-server-probe.cjs"))}`;
  const env = {
    SWARMDECK_STALL_SWEEP_MS: "60000",
    NODE_OPTIONS: [process.env.NODE_OPTIONS, probe].filter(Boolean).join(" "),
    SWARMDECK_BENCH_GC_FILE: gcFile,
    ...(STATEMENTS ? { SWARMDECK_BENCH_STATEMENTS: "1" } : {}),
    ...(values.profile ? { SWARMDECK_PROFILE_DIR: values.profile } : {}),
  };
  const server = await startTestServer({ env });
  const servers: TestServer[] = [server];
  while (servers.length < INSTANCES) servers.push(await startTestServer({ env, databaseUrl: server.databaseUrl }));
  console.log(`Store: ${STORE}, ${INSTANCES} app instance(s); workers are spread over them.`);
  // One kept-alive connection per worker loop (scripts/bench-http.ts).
  const clients = servers.map((s) => keepAliveClient(s.baseUrl, Math.ceil(WORKERS / INSTANCES) + 4));
  const callOn = (i: number): Call => {
    const on = servers[i % servers.length] as TestServer;
    const client = clients[i % clients.length] as ReturnType<typeof keepAliveClient>;
    return clientName === "fetch" ? fetchCall(on.baseUrl) : keptAliveCall(client);
  };
  const call = callOn(0);
  // This process's own collections: each pauses all the worker loops at once (scripts/bench-http.ts).
  const pauses = clientPauses();
  let pids = serverPids(server.databaseUrl);
  try {
    console.log(`Creating ${WORKERS} agents with worker tokens ...`);
    const agents: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < WORKERS; i += 1) {
      const agent = await call("POST", "/api/v1/agents", server.adminToken, { name: `bench-${i}` });
      if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
      const id = agent.body.agent.id as string;
      const made = await call("POST", `/api/v1/agents/${id}/tokens`, server.adminToken, { name: "bench" });
      if (made.status !== 201) throw new Error(`worker token: ${made.status} ${JSON.stringify(made.body)}`);
      agents.push({ id, token: made.body.token as string });
    }

    {
      // The floor: the cheapest worker route there is (a refused token: routing,
      // the wrapper, one indexed SELECT) under the same concurrency.
      const floorMs = 3000;
      const spent = cpuSince(pids);
      const t0 = performance.now();
      let requests = 0;
      await Promise.all(
        agents.map(async (_agent, i) => {
          const callHere = callOn(i);
          while (performance.now() - t0 < floorMs) {
            await callHere("GET", "/api/worker/poll", "sdw_not-a-token");
            requests += 1;
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      const cpu = spent();
      console.log(
        `floor: a refused worker request (401) x ${requests}: ${(requests / seconds).toFixed(0)} requests/s, server CPU ${(cpu / requests).toFixed(2)} ms per request; load average ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
      );
    }

    // Each reported round against the target, for the verdict at the end.
    const reported: Array<{ round: number; perSecond: number; p99: number }> = [];
    // What a claim and a complete answered (for the client's own ceiling, below).
    let answered: { poll: string; complete: string } | undefined;

    // Round 0 warms the server up (V8 compiles the hot paths on their first few
    // thousand calls, and perhaps the WAL file grows to what a round writes) and is not
    // reported: a control plane runs for days, and a first minute's figures would
    // measure the compiler, not the server. It is as large as the rounds: after a
    // warm-up of half a round, the first reported round had the highest server CPU
    // per cycle of its run in five runs of six (docs/benchmarks.md, "The bench's own
    // share, and its warm-up").
    for (let round = 0; round <= ROUNDS; round += 1) {
      const create0 = performance.now();
      for (let i = 0; i < TASKS; i += 1) {
        const reply = await call("POST", "/api/v1/tasks", server.adminToken, { title: `bench task ${round}.${i}`, priority: i % 3 });
        if (reply.status !== 201) throw new Error(`task: ${reply.status}`);
      }
      const createMs = performance.now() - create0;

      // Open (or refresh) one kept-alive connection per worker loop, as long-polling workers hold them.
      await Promise.all(agents.map((_agent, i) => callOn(i)("GET", "/api/worker/poll", "sdw_warm-up")));
      const appPids = serverPids(server.databaseUrl);
      pids = [...appPids, ...(await postgresPids(server.databaseUrl))];

      // When each poll that brought a task went out and came back (performance.now()).
      const pollSpans: Array<[number, number]> = [];
      const emptyPolls: number[] = [];
      const slow: string[] = [];
      const completes: number[] = [];
      let cycles = 0;
      let errors = 0;
      // Drained when the last task is completed; the long polls still waiting then
      // for work that will not come (the empty polls) do not count.
      let drainedAt = Number.NaN;
      await pauses.reset();
      const start = performance.now();
      signalAll(appPids, "SIGUSR2");
      const serverSpent = cpuSince(pids);
      const clientCpu0 = process.cpuUsage();
      await Promise.all(
        agents.map(async ({ token }, i) => {
          const call = callOn(i);
          for (;;) {
            if (cycles >= TASKS) return;
            const t0 = performance.now();
            const poll = await call("GET", `/api/worker/poll?waitMs=${cycles >= TASKS ? 0 : WAIT_MS}`, token);
            const took = performance.now() - t0;
            if (took > 1500) slow.push(`${(t0 - start).toFixed(0)}ms+${took.toFixed(0)}(${poll.status})`);
            if (poll.status === 204) {
              emptyPolls.push(took);
              if (cycles >= TASKS) return;
              continue;
            }
            pollSpans.push([t0, t0 + took]);
            if (poll.status !== 200) {
              errors += 1;
              continue;
            }
            const t1 = performance.now();
            const done = await call("POST", `/api/worker/tasks/${poll.body.task.id}/complete`, token, { output: "ok" });
            completes.push(performance.now() - t1);
            if (done.status === 200) {
              answered ??= { poll: JSON.stringify(poll.body), complete: JSON.stringify(done.body) };
              cycles += 1;
              if (cycles === TASKS) drainedAt = performance.now();
            } else errors += 1;
          }
        }),
      );
      const seconds = ((Number.isNaN(drainedAt) ? performance.now() : drainedAt) - start) / 1000;
      const serverCpu = serverSpent();
      signalAll(appPids, "SIGUSR2");
      const clientUsage = process.cpuUsage(clientCpu0);
      const clientCpu = (clientUsage.user + clientUsage.system) / 1000;
      const polls = sortedLengths(pollSpans);
      // The same polls less the time this process was paused while they were out: what workers
      // each in a process of their own would have seen of them, the server unchanged (an estimate).
      const paused = await pauses.taken();
      const pollsUnpaused = sortedLengths(pollSpans, paused);
      completes.sort((a, b) => a - b);
      const ms = (value: number) => `${value.toFixed(1)} ms`;
      // The servers' probes number the rounds they were signalled for from 1, the warm-up included.
      const inServers = await roundInServers(gcFile, round + 1, appPids.length);
      if (round === 0) {
        console.log(`warm-up: ${TASKS} claim+complete cycles (not reported)`);
        continue;
      }
      reported.push({ round, perSecond: cycles / seconds, p99: percentile(polls, 99) });
      console.log(
        [
          `round ${round}: ${WORKERS} workers drained ${TASKS} pool tasks in ${seconds.toFixed(2)} s (created in ${(createMs / 1000).toFixed(2)} s)`,
          `  claim+complete cycles/s: ${(cycles / seconds).toFixed(0)}${errors ? `  (errors: ${errors})` : ""}`,
          `  poll     p50 ${ms(percentile(polls, 50))}  p99 ${ms(percentile(polls, 99))}  max ${ms(polls.at(-1) ?? Number.NaN)}  (n=${polls.length}; ${emptyPolls.length} empty polls at the end)`,
          ...(process.env.BENCH_DEBUG ? [`  slow polls: ${slow.join(" ")}`] : []),
          `  server CPU${STORE === "postgresql" ? " (app instances + PostgreSQL backends)" : ""} ${serverCpu.toFixed(0)} ms = ${(serverCpu / Math.max(1, cycles)).toFixed(2)} ms per cycle (one core's ceiling: ${(1000 / (serverCpu / Math.max(1, cycles))).toFixed(0)} cycles/s); bench client CPU ${clientCpu.toFixed(0)} ms; load average ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
          `  complete p50 ${ms(percentile(completes, 50))}  p99 ${ms(percentile(completes, 99))}  max ${ms(completes.at(-1) ?? Number.NaN)}`,
          `  server GC: ${inServers.collections}`,
          `  bench client GC: ${describePauses(paused)}; the polls less the time these paused them: p50 ${ms(percentile(pollsUnpaused, 50))}  p99 ${ms(percentile(pollsUnpaused, 99))}`,
          ...(inServers.statements ? [`  server SQLite statements: ${inServers.statements}`] : []),
          ...(inServers.busiest ? [`  server SQLite statements, the most time together: ${inServers.busiest}`] : []),
        ].join("\n"),
      );
    }
    let ceilingPerSecond: number | undefined;
    if (answered) {
      // The same loops, client and answers against a server that does no work: what this client can drive from here at most.
      const replies = { GET: { status: 200, body: answered.poll }, POST: { status: 200, body: answered.complete } };
      let standIn: Call | undefined;
      let standInClient: ReturnType<typeof keepAliveClient> | undefined;
      // The client's own share of a poll's time: the same loops, with nothing to wait for on the server's side.
      const standInPolls: Array<[number, number]> = [];
      await pauses.reset();
      const { perSecond, clientCpuMs } = await clientCeiling({
        replies,
        loops: WORKERS,
        seconds: 3,
        run: async (baseUrl) => {
          if (!standIn) {
            if (clientName === "keep-alive") standInClient = keepAliveClient(baseUrl, WORKERS + 4);
            standIn = standInClient ? keptAliveCall(standInClient) : fetchCall(baseUrl);
          }
          const t0 = performance.now();
          await standIn("GET", `/api/worker/poll?waitMs=${WAIT_MS}`, "sdw_stand-in");
          standInPolls.push([t0, performance.now()]);
          await standIn("POST", "/api/worker/tasks/stand-in/complete", "sdw_stand-in", { output: "ok" });
        },
      });
      standInClient?.close();
      // The first poll of each loop opened its connection (clientCeiling's warm-up): not timed.
      standInPolls.splice(0, WORKERS);
      const standInPaused = await pauses.taken();
      const standInTook = sortedLengths(standInPolls);
      const standInUnpaused = sortedLengths(standInPolls, standInPaused);
      console.log(
        [
          `client ceiling: the same ${WORKERS} loops and answers against a server that does no work: ${perSecond.toFixed(0)} cycles/s, bench client CPU ${(clientCpuMs).toFixed(2)} ms per cycle (no server on this machine can be measured faster with this client)`,
          `  poll p50 ${percentile(standInTook, 50).toFixed(1)} ms  p99 ${percentile(standInTook, 99).toFixed(1)} ms there: the client and the stand-in alone, running flat out`,
          `  bench client GC there: ${describePauses(standInPaused)}; the polls less the time these paused them: p50 ${percentile(standInUnpaused, 50).toFixed(1)} ms  p99 ${percentile(standInUnpaused, 99).toFixed(1)} ms`,
        ].join("\n"),
      );
      ceilingPerSecond = perSecond;
    }
    console.log(verdict(reported, ceilingPerSecond));
  } finally {
    pauses.stop();
    for (const client of clients) client.close();
    for (const s of servers.slice(1)) await s.stop();
    await server.stop();
    rmSync(gcFile, { force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
