// WAL checkpoints off the request thread. In WAL mode every commit appends pages
// to the -wal file, and a checkpoint copies them back into the database file and
// fsyncs it. SQLite runs that checkpoint inside the commit that crosses
// wal_autocheckpoint (lib/db.ts sets 10,000 pages), so one request in a few
// hundred waited for a copy of up to 40 MB plus an fsync: the long tail of the
// worker's poll and claim latencies (bench:dispatch p99). Here a worker thread
// with its own connection to the same file runs PASSIVE checkpoints: each copies
// what no reader still needs and never blocks the writer, which keeps appending
// meanwhile. The writer's autocheckpoint stays as the safety net (if this thread
// cannot start, or falls behind, commits checkpoint as before).
//
// The cadence follows the writes: every 100 ms while commits keep coming, every
// second once the database is still. At one a second the thread did not catch up
// with a busy writer, so the WAL was not started over and grew to the
// autocheckpoint (a bench:dispatch round writes more than 10,000 pages: 1,000 task
// creations, then the claims and completes), and the writer ran that checkpoint
// inside a COMMIT, once or twice a round: `perf record` showed walCheckpoint under
// the commit, and the commit took 10-29 ms with every request waiting
// (docs/benchmarks.md, "Checkpoints that kept up"). At 100 ms each checkpoint has a
// tenth as much to copy (more in all: a hot page is copied each time), and it
// often catches up, so the writer starts the WAL over from its beginning.
import path from "node:path";
import { Worker } from "node:worker_threads";

// The thread's code. better-sqlite3 is resolved from the app's folder (the
// working directory of `npm start`, the test harnesses and the Docker image).
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const Database = createRequire(workerData.resolveFrom)("better-sqlite3");
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
let checkpoints = 0;
let ticks = 0;
let seen = -1;
let timer = setTimeout(checkpoint, workerData.busyEveryMs);
function checkpoint() {
  ticks++;
  let written = false;
  try {
    // data_version changes whenever another connection has committed since this one last looked.
    const version = db.pragma("data_version", { simple: true });
    written = version !== seen;
    seen = version;
    // Also when nothing was committed: what an earlier checkpoint could not copy yet (a
    // reader still needed it) is copied now.
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    if (written && result && result.busy === 0) checkpoints++;
  } catch {
    // Busy or locked: the next round (or the writer's autocheckpoint) does it.
  }
  timer = setTimeout(checkpoint, written ? workerData.busyEveryMs : workerData.idleEveryMs);
}
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearTimeout(timer);
  db.close();
  parentPort.postMessage({ stopped: true, checkpoints, ticks });
});
`;

export type WalCheckpointer = {
  /**
   * Stops the thread and closes its connection. Resolves with how many checkpoints it
   * ran after new commits, and how many times it woke up to look (0 and 0 when the
   * thread had stopped already).
   */
  stop(): Promise<{ checkpoints: number; ticks: number }>;
};

/**
 * Starts the checkpoint thread for the SQLite file `file` (which must exist, in WAL
 * mode): a checkpoint every `busyEveryMs` (100) while the WAL keeps changing, every
 * `idleEveryMs` (1,000) once it is still.
 */
export function startWalCheckpointer(
  file: string,
  options: { idleEveryMs?: number; busyEveryMs?: number; resolveFrom?: string } = {},
): WalCheckpointer {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      file,
      // At least 10 ms: a checkpoint per commit would copy the hot pages over and over.
      idleEveryMs: Math.max(10, options.idleEveryMs ?? 1000),
      busyEveryMs: Math.max(10, options.busyEveryMs ?? 100),
      resolveFrom: options.resolveFrom ?? path.join(process.cwd(), "package.json"),
    },
    // A small thread: a connection and a timer (the default young generation is 16+ MB).
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  worker.unref();
  let exited = false;
  worker.once("exit", () => {
    exited = true;
  });
  worker.on("error", (error) => {
    console.warn(`[swarmdeck] WAL checkpoint thread stopped (commits checkpoint as before): ${error.message}`);
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        const none = { checkpoints: 0, ticks: 0 };
        if (exited) return resolve(none);
        worker.once("message", (message: { checkpoints?: number; ticks?: number }) => {
          resolve({ checkpoints: message.checkpoints ?? 0, ticks: message.ticks ?? 0 });
          void worker.terminate();
        });
        worker.once("exit", () => resolve(none));
        worker.postMessage("stop");
      }),
  };
}
