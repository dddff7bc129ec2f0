// WAL checkpoints off the request thread. In WAL mode every commit appends pages
// to the -wal file, and a checkpoint copies them back into the database file and
// fsyncs it. SQLite runs that checkpoint inside the commit that crosses
// wal_autocheckpoint (lib/db.ts sets 10,000 pages), so one request in a few
// hundred waited for a copy of up to 40 MB plus an fsync: the long tail of the
// worker's poll and claim latencies (bench:dispatch p99). Here a worker thread
// with its own connection to the same file runs a PASSIVE checkpoint every
// second: it copies what no reader still needs and never blocks the writer,
// which keeps appending meanwhile; the WAL then rarely reaches the autocheckpoint
// size, which stays as the safety net (if this thread cannot start, or falls
// behind, commits checkpoint as before).
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
const timer = setInterval(() => {
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    if (result && result.checkpointed > 0) checkpoints++;
  } catch {
    // Busy or locked: the next round (or the writer's autocheckpoint) does it.
  }
}, workerData.everyMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort.postMessage({ stopped: true, checkpoints });
});
`;

export type WalCheckpointer = {
  /** Stops the thread and closes its connection; resolves with how many checkpoints copied pages. */
  stop(): Promise<number>;
};

/** Starts the checkpoint thread for the SQLite file `file` (which must exist, in WAL mode). */
export function startWalCheckpointer(file: string, options: { everyMs?: number; resolveFrom?: string } = {}): WalCheckpointer {
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: {
      file,
      everyMs: options.everyMs ?? 1000,
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
      new Promise<number>((resolve) => {
        if (exited) return resolve(0);
        worker.once("message", (message: { checkpoints?: number }) => {
          resolve(message.checkpoints ?? 0);
          void worker.terminate();
        });
        worker.once("exit", () => resolve(0));
        worker.postMessage("stop");
      }),
  };
}
