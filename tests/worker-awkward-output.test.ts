// Output the app will not take as it is (worker/api-client.ts reportText): the real
// worker against the real app. A NUL in the agent's output made the app refuse the
// report (400), the task stayed in progress until it stalled, and it ran again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, createTask, getTask, type Target } from "./worker-helpers";

let target: Target;
let root: string;

beforeAll(() => {
  target = server();
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-output-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("an agent's output with a NUL in it", { timeout: 120_000 }, () => {
  it("is reported with the NUL as U+FFFD: a task that succeeded completes once, one that failed fails with its reason", async () => {
    const agent = await agentWithToken(target);
    const succeeded = await createTask(target, { title: "prints a NUL and succeeds", agentId: agent.id });
    const env = {
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: path.join(root, "ws"),
      REFLECTION: "off",
    };
    const ok = spawnWorker({ ...env, AGENT_COMMAND: "cat > /dev/null; printf 'before\\000after\\n'" });
    expect(await ok.exited, ok.log()).toBe(0);
    const done = await getTask(target, succeeded);
    expect(done.task.status, ok.log()).toBe("completed");
    expect(done.task.output).toBe("before\uFFFDafter\n");
    expect(done.events.filter((event: { type: string }) => event.type === "claimed")).toHaveLength(1);

    const failed = await createTask(target, { title: "prints a NUL and fails", agentId: agent.id });
    const bad = spawnWorker({ ...env, AGENT_COMMAND: "cat > /dev/null; printf 'broke\\000here\\n' >&2; exit 3" });
    expect(await bad.exited, bad.log()).toBe(0);
    const { task } = await getTask(target, failed);
    expect(task.status, bad.log()).toBe("failed");
    expect(task.failureReason).toContain("broke\uFFFDhere");
  });
});
