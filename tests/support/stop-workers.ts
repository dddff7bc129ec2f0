// Set up for every test file (vitest.config.ts): after the file, no worker it started
// is left running, even when a test failed before stopping its own.
import { afterAll } from "vitest";
import { stopStrayWorkers } from "../../worker/test-support/run-worker";

afterAll(stopStrayWorkers);
