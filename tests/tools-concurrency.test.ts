// An agent's tool written by several requests at the same moment, as when two of
// its worker processes (or two app instances) handle them: the tool is created once
// and every write becomes its own version, numbered 1..n with no gap or repeat. On
// PostgreSQL the tool row is created by INSERT ... ON CONFLICT and locked for each
// new version (lib/tools/agent-tools.ts); SQLite runs one write at a time, and the
// same assertions hold.
import { describe, expect, it } from "vitest";
import { agentWithWorker } from "./identity-helpers";
import { admin } from "./support/client";

const WRITES = 8;

describe("tools under concurrent writes", () => {
  it("one new tool written by many requests at once: created once, versions 1..n, the last applied in force", async () => {
    const { agent, worker } = await agentWithWorker();
    const replies = await Promise.all(
      Array.from({ length: WRITES }, (_, i) =>
        worker.post("/api/worker/tools", {
          name: "race_tool",
          description: `race_tool, writer ${i}`,
          source: `export default {} // writer ${i}`,
          compiledCode: "export const tool = {};",
          inputSchema: { type: "object", properties: {} },
          timeoutMs: 2000,
          testInput: {},
          testOutput: {},
          testDurationMs: 10,
          reason: `writer ${i}`,
        }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(WRITES).fill(201));
    expect(replies.map((reply) => reply.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: WRITES }, (_, i) => i + 1));
    const tools = (await admin().get(`/api/v1/agents/${agent.id}/tools`)).body;
    const list = tools.tools as { name: string }[];
    expect(list.filter((tool) => tool.name === "race_tool")).toHaveLength(1);
    const detail = (await admin().get(`/api/v1/agents/${agent.id}/tools/race_tool`)).body;
    expect(detail.currentVersion).toBe(WRITES);
    expect(detail.versions.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: WRITES }, (_, i) => WRITES - i));
  });
});
