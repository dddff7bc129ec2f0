// Preloaded into the server by `npm run bench:dispatch` (NODE_OPTIONS=--require ...).
// The bench sends SIGUSR2 when a drain round starts and again when it ends, so only
// the rounds are measured, not start-up or the arranging of agents and tasks:
// - always, the round's garbage collections: each one pauses every request in
//   flight, so they are a share of the slowest polls. One JSON line per round,
//   numbered from 1 (the bench's warm-up), is appended to SWARMDECK_BENCH_GC_FILE,
//   which the bench reads and prints;
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

function writeCollections(round, from, to) {
  const entries = recent.filter((entry) => entry.startTime >= from && entry.startTime <= to);
  const durations = (kind) => entries.filter((entry) => entry.detail?.kind === kind).map((entry) => entry.duration);
  const young = durations(constants.NODE_PERFORMANCE_GC_MINOR);
  const full = durations(constants.NODE_PERFORMANCE_GC_MAJOR);
  // Incremental marking steps and weak-callback processing: pauses too, but neither kind of collection.
  const other = entries.length - young.length - full.length;
  fs.appendFileSync(gcFile, `${JSON.stringify({ pid: process.pid, round, young, full, other })}\n`);
}

let round = 0;
let roundStart = null;
process.on("SIGUSR2", () => {
  if (roundStart === null) {
    round += 1;
    roundStart = performance.now();
    if (profileDir) startProfile();
    return;
  }
  const ended = { round, from: roundStart, to: performance.now() };
  roundStart = null;
  if (session) stopProfile();
  // GC entries reach the observer a moment after the collection: wait for the round's last.
  if (gcFile) setTimeout(() => writeCollections(ended.round, ended.from, ended.to), 50);
});
