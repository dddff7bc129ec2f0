// `swarm tool run` with inputs of megabytes, end to end: the real app, a real worker
// process and a scripted agent that writes a tool with the CLI, then runs it with
// inputs far larger than one command-line argument holds (128 KiB on Linux), from a
// file and from stdin, and one above the worker's limit for a call.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, createTask, getTask, type Target, tempDirs } from "./worker-helpers";

let target: Target;
const tempDir = tempDirs("tool-cli");
beforeAll(() => {
  target = server();
});

const TOOL = `import { z } from "zod";
export default {
  name: "measure_text",
  description: "Says how long a text is and how it ends",
  inputSchema: z.object({ text: z.string() }),
  async execute(input: { text: string }) {
    return { length: input.text.length, ends: input.text.slice(-5) };
  },
};`;

describe("swarm tool run with a large input", { timeout: 120_000 }, () => {
  it("runs the tool on 1.5 MB from a file and from stdin, and refuses 5 MB with exit 2 and the limit, sending nothing", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const report = tempDir();
    const script = [
      "cat >/dev/null",
      `cat > tool.ts <<'EOF'\n${TOOL}\nEOF`,
      `swarm tool write measure_text --file tool.ts --test-input '{"text":"hello"}' > "$REPORT/write.out" 2>&1; echo $? > "$REPORT/write.code"`,
      // 1.5 MB and 5 MB of JSON: {"text":"xxxx...end!"}
      `node -e 'process.stdout.write(JSON.stringify({ text: "x".repeat(1536 * 1024) + "end!!" }))' > mid.json`,
      `node -e 'process.stdout.write(JSON.stringify({ text: "y".repeat(5 * 1024 * 1024) + "end!!" }))' > big.json`,
      `swarm tool run measure_text --input-file mid.json > "$REPORT/file.out" 2> "$REPORT/file.err"; echo $? > "$REPORT/file.code"`,
      `swarm tool run measure_text --input-file - < mid.json > "$REPORT/stdin.out" 2> "$REPORT/stdin.err"; echo $? > "$REPORT/stdin.code"`,
      `swarm tool run measure_text --input-file big.json > "$REPORT/big.out" 2> "$REPORT/big.err"; echo $? > "$REPORT/big.code"`,
      `cat big.json | swarm tool run measure_text --input-file - > "$REPORT/bigstdin.out" 2> "$REPORT/bigstdin.err"; echo $? > "$REPORT/bigstdin.code"`,
      "echo done",
    ].join("\n");
    const taskId = await createTask(target, { title: "measure a big text", agentId: agent.id });
    const run = spawnWorker({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: tempDir(),
      AGENT_COMMAND: script,
      REFLECTION: "off",
      REPORT: report,
    });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    const read = (name: string) => readFileSync(path.join(report, name), "utf8").trim();

    expect(read("write.code"), read("write.out")).toBe("0");
    for (const how of ["file", "stdin"]) {
      expect(read(`${how}.code`), read(`${how}.err`)).toBe("0");
      expect(JSON.parse(read(`${how}.out`))).toEqual({ length: 1536 * 1024 + 5, ends: "end!!" });
    }
    // Above the limit: a usage error (exit 2) that says how big it was and what the limit is, not E2BIG.
    for (const how of ["big", "bigstdin"]) {
      expect(read(`${how}.code`)).toBe("2");
      expect(read(`${how}.out`)).toBe("");
      expect(read(`${how}.err`)).toMatch(/is 5\.0 MiB; a tool's input is at most 2\.0 MiB .*nothing was sent/);
      expect(read(`${how}.err`)).not.toMatch(/E2BIG/);
    }
  });
});
