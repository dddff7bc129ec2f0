// Preloaded into the server by `npm run bench:dispatch` (NODE_OPTIONS=--require ...).
// The bench sends SIGUSR2 when a drain round starts and again when it ends, so only
// the rounds are measured, not start-up or the arranging of agents and tasks:
// - always, the round's garbage collections: each one pauses every request in
//   flight, so they are a share of the slowest polls. One JSON line per round,
//   numbered from 1 (the bench's warm-up), is appended to SWARMDECK_BENCH_GC_FILE,
//   which the bench reads and prints;
// - with `--statements` (SWARMDECK_BENCH_STATEMENTS=1), on SQLite, the round's
//   statements: their time in all, the longest single ones (a statement holds the
//   event loop, so a long one holds up every request behind it) and the statements
//   that took the most time together; in the same line. Off by default: the timing
//   wrapper was about 7% of the main thread's busy time in one profiled round
//   (docs/benchmarks.md, "The bench's own share, and its warm-up");
// - with `--profile DIR` (SWARMDECK_PROFILE_DIR), a V8 CPU profile of the round,
//   written to DIR (--cpu-prof is not allowed in NODE_OPTIONS).
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");
const { PerformanceObserver, constants, performance } = require("node:perf_hooks");

const gcFile = process.env.SWARMDECK_BENCH_GC_FILE;
const profileDir = process.env.SWARMDECK_PROFILE_DIR;

/** The latest collections (a round has a few dozen); each round takes those that started inside it. */
const KEEP = 2000;
let recent = [];
new PerformanceObserver((list) => {
  recent.push(...list.getEntries());
  if (recent.length > KEEP) recent = recent.slice(-KEEP);
}).observe({ entryTypes: ["gc"] });

let round = 0;
let roundStart = null;

/** The round's three longest statement executions, and each statement's time and count. */
let longest = [];
let byStatement = new Map();

/** A statement's text on one line, cut to `length`. */
const shortSql = (source, length) => source.replace(/\s+/g, " ").slice(0, length);

/**
 * Times the better-sqlite3 statements the server runs during a round (BEGIN and
 * COMMIT of the group commit included), by wrapping the Statement methods `run`,
 * `get` and `all` (not `iterate`, nor `Database#exec`). Only with
 * SWARMDECK_BENCH_STATEMENTS=1 (the bench's `--statements`, SQLite only); only the
 * main thread is timed, and a better-sqlite3 that cannot be loaded leaves the server
 * as it is.
 */
function timeStatements() {
  if (process.env.SWARMDECK_BENCH_STATEMENTS !== "1" || !require("node:worker_threads").isMainThread) return;
  let proto;
  try {
    const Database = require(require.resolve("better-sqlite3", { paths: [process.cwd()] }));
    const scratch = new Database(":memory:");
    proto = Object.getPrototypeOf(scratch.prepare("SELECT 1"));
    scratch.close();
  } catch {
    return;
  }
  for (const method of ["run", "get", "all"]) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      if (roundStart === null) return original.apply(this, args);
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - started;
        const total = byStatement.get(this.source);
        if (total) {
          total.ms += ms;
          total.count += 1;
        } else byStatement.set(this.source, { ms, count: 1 });
        if (longest.length < 3 || ms > longest[longest.length - 1].ms) {
          longest.push({ sql: shortSql(this.source, 48), ms: Math.round(ms * 10) / 10 });
          longest.sort((a, b) => b.ms - a.ms);
          if (longest.length > 3) longest.length = 3;
        }
      }
    };
  }
}
timeStatements();

let session = null;

function startProfile() {
  session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 250 });
  session.post("Profiler.start");
}

function stopProfile() {
  const current = session;
  session = null;
  current.post("Profiler.stop", (error, result) => {
    current.disconnect();
    if (error) return;
    fs.mkdirSync(profileDir, { recursive: true });
    fs.writeFileSync(path.join(profileDir, `server-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(result.profile));
  });
}

function writeRound(round, from, to, statements) {
  const entries = recent.filter((entry) => entry.startTime >= from && entry.startTime <= to);
  const durations = (kind) => entries.filter((entry) => entry.detail?.kind === kind).map((entry) => entry.duration);
  const young = durations(constants.NODE_PERFORMANCE_GC_MINOR);
  const full = durations(constants.NODE_PERFORMANCE_GC_MAJOR);
  // Incremental marking steps and weak-callback processing: pauses too, but neither kind of collection.
  const other = entries.length - young.length - full.length;
  fs.appendFileSync(gcFile, `${JSON.stringify({ pid: process.pid, round, young, full, other, statements })}\n`);
}

process.on("SIGUSR2", () => {
  if (roundStart === null) {
    round += 1;
    longest = [];
    byStatement = new Map();
    roundStart = performance.now();
    if (profileDir) startProfile();
    return;
  }
  const most = [...byStatement]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 5)
    .map(([source, { ms, count }]) => ({ sql: shortSql(source, 48), ms: Math.round(ms), count }));
  let statementMs = 0;
  for (const { ms } of byStatement.values()) statementMs += ms;
  const statements = byStatement.size > 0 ? { ms: Math.round(statementMs), longest, most } : undefined;
  const ended = { round, from: roundStart, to: performance.now(), statements };
  roundStart = null;
  if (session) stopProfile();
  // GC entries reach the observer a moment after the collection: wait for the round's last.
  if (gcFile) setTimeout(() => writeRound(ended.round, ended.from, ended.to, ended.statements), 50);
});
