// The worker runner: `npm run worker [-- --once]` (worker/README.md). On SIGTERM
// or SIGINT it stops the agent, gives back the task it holds and exits 0.
import { ConfigError, loadConfig, type WorkerConfig } from "./config";
import { createLogger } from "./log";
import { killTrackedGroups } from "./process-group";
import { runWorker } from "./worker-loop";

async function main() {
  const log = createLogger();
  let config: WorkerConfig;
  try {
    config = loadConfig(process.env, process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigError) {
      log.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      log.warn(`${signal} again: killing the agent's process group and exiting now`);
      killTrackedGroups();
      process.exit(1);
    }
    log.info(`${signal}: stopping (the held task, if any, is given back)`);
    controller.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    process.exitCode = await runWorker(config, log, controller.signal);
  } catch (error) {
    log.error(`the worker stopped on an error: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

await main();
