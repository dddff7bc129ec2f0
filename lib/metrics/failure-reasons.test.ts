import { describe, expect, it } from "vitest";
import { failingAgents, groupFailures, normalizeFailureReason } from "./failure-reasons";

describe("normalizeFailureReason", () => {
  it("groups reasons that differ only in ids and numbers", () => {
    expect(normalizeFailureReason("Timeout after 30s on task cm3k2x9a0000qz8ab12cd34ef")).toBe("timeout after <n>s on task <id>");
    expect(normalizeFailureReason("Timeout after 45s on task cm3k2x9a0000qz8ab99zz11yy")).toBe("timeout after <n>s on task <id>");
    expect(normalizeFailureReason("Exit code 137\nstack trace...")).toBe("exit code <n>");
    expect(normalizeFailureReason("npm ERR! 404 request 1b4e28ba-2fa1-11d2-883f-0016d3cca427")).toBe("npm err! <n> request <id>");
    expect(normalizeFailureReason("  ")).toBe("(no reason given)");
  });

  it("counts each group per day and across agents", () => {
    const at = Date.UTC(2026, 0, 5, 12);
    const groups = groupFailures([
      { agentId: "a", finishedAt: at, failureReason: "Exit code 1" },
      { agentId: "b", finishedAt: at + 86_400_000, failureReason: "Exit code 2" },
      { agentId: "a", finishedAt: at, failureReason: "Out of memory" },
    ]);
    expect(groups[0]).toMatchObject({ key: "exit code <n>", count: 2, agents: 2, firstSeen: "2026-01-05", lastSeen: "2026-01-06" });
    expect(groups[1]).toMatchObject({ key: "out of memory", count: 1, agents: 1 });
  });

  it("says which agents a recurring failure comes from, the most failing first, by name", () => {
    const at = Date.UTC(2026, 0, 5, 12);
    const [group] = groupFailures([
      { agentId: "b", finishedAt: at, failureReason: "Lint failed: 3 errors" },
      { agentId: "a", finishedAt: at, failureReason: "Lint failed: 5 errors" },
      { agentId: "b", finishedAt: at + 86_400_000, failureReason: "Lint failed: 1 errors" },
      { agentId: null, finishedAt: at, failureReason: "Lint failed: 2 errors" },
    ]);
    expect(group?.perAgent).toEqual({ a: 1, b: 2, "": 1 });
    expect(
      failingAgents(
        group!,
        new Map([
          ["a", "alice"],
          ["b", "bob"],
        ]),
      ),
    ).toEqual([
      { agentId: "b", agentName: "bob", count: 2 },
      { agentId: "a", agentName: "alice", count: 1 },
      { agentId: null, agentName: null, count: 1 },
    ]);
  });
});
