// Set up for every HTTP test file (vitest.config.ts): after the file, no task it left
// in the pool is waiting there. The files share one server and run one after another,
// and a pool task goes to whichever worker asks first, its priority before an agent's
// own tasks: a task an operator test left unassigned (priority 7, say) was claimed by
// the next file's worker in place of the task that test was waiting for.
import { afterAll } from "vitest";
import { drainPool } from "../tasks-helpers";

afterAll(drainPool);
