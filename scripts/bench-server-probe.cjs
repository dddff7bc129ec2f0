// Preloaded into the server by `npm run bench:dispatch` (NODE_OPTIONS=--require ...).
// The bench sends SIGUSR2 when a drain round starts and again when it ends, so only
// the rounds are measured, not start-up or the arranging of agents and tasks:
// - always, the round's garbage collections: each one pauses every request in
//   flight, so they are a share of the slowest polls. They are appended as one JSON
//   line per round to SWARMDECK_BENCH_GC_FILE, which the bench reads and prints;
// - with `--profile DIR` (SWARMDECK_PROFILE_DIR), a V8 CPU profile of the round,
//   written to DIR (--cpu-prof is not allowed in NODE_OPTIONS).
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");
const { PerformanceObserver, constants } = require("node:perf_hooks");

const gcFile = process.env.SWARMDECK_BENCH_GC_FILE;
const profileDir = process.env.SWARMDECK_PROFILE_DIR;

/** The round's collections while one is measured, else null. */
let collections = null;
new PerformanceObserver((list) => {
  if (collections) for (const entry of list.getEntries()) collections.push(entry);
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

function writeCollections(round) {
  const young = round.filter((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR);
  const full = round.filter((entry) => entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR);
  const line = { pid: process.pid, young: young.map((entry) => entry.duration), full: full.map((entry) => entry.duration) };
  fs.appendFileSync(gcFile, `${JSON.stringify(line)}\n`);
}

process.on("SIGUSR2", () => {
  if (!collections) {
    collections = [];
    if (profileDir) startProfile();
    return;
  }
  if (session) stopProfile();
  // GC entries reach the observer a moment after the collection: wait for the round's last.
  setTimeout(() => {
    const round = collections;
    collections = null;
    if (gcFile && round) writeCollections(round);
  }, 50);
});
