import { describe, expect, it } from "vitest";
import { parseSwarmArgs, UsageError } from "./swarm-args";

describe("the lead's swarm commands", () => {
  it("turns swarm swarm views into the query the worker forwards", () => {
    expect(
      parseSwarmArgs(["swarm", "tasks", "--agent", "bob", "--status", "failed,completed", "--since", "7d", "--search", "lint"]),
    ).toEqual({
      command: "swarm",
      view: "tasks",
      query: { agent: "bob", status: "failed,completed", since: "7d", q: "lint" },
      json: false,
    });
    expect(parseSwarmArgs(["swarm", "agents", "--json"])).toEqual({ command: "swarm", view: "agents", query: {}, json: true });
    expect(parseSwarmArgs(["swarm", "report", "--to=2030-01-07"])).toMatchObject({ view: "report", query: { to: "2030-01-07" } });
    expect(parseSwarmArgs(["swarm", "task", "cabc123"])).toMatchObject({ view: "task", id: "cabc123" });
    expect(parseSwarmArgs(["swarm", "outcomes", "--agent", "bob"])).toMatchObject({ view: "outcomes", query: { agent: "bob" } });
  });

  it("refuses what the app would refuse anyway, with a message that says how", () => {
    expect(() => parseSwarmArgs(["swarm"])).toThrow(/tasks, task, agents, report, failures, outcomes/);
    expect(() => parseSwarmArgs(["swarm", "tasks", "--status", "done"])).toThrow(/unknown status done/);
    expect(() => parseSwarmArgs(["swarm", "agents", "--agent", "x"])).toThrow(/unknown option --agent/);
    expect(() => parseSwarmArgs(["swarm", "outcomes"])).toThrow(/--agent is required/);
    expect(() => parseSwarmArgs(["swarm", "task"])).toThrow(UsageError);
    expect(() => parseSwarmArgs(["swarm", "tasks", "--limit", "lots"])).toThrow(/--limit/);
  });

  it("parses swarm learn for one agent or for the swarm", () => {
    expect(parseSwarmArgs(["learn", "--agent", "bob", "--category", "mistake-pattern", "Run", "the linter", "--claude-md"])).toEqual({
      command: "learn",
      body: { targetAgent: "bob", scope: "agent", category: "mistake-pattern", learning: "Run the linter", addToClaudeMd: true },
    });
    expect(parseSwarmArgs(["learn", "--swarm", "--category", "best-practice", "Small PRs"])).toEqual({
      command: "learn",
      body: { scope: "swarm", category: "best-practice", learning: "Small PRs", addToClaudeMd: false },
    });
    expect(() => parseSwarmArgs(["learn", "--category", "best-practice", "x"])).toThrow(/--agent NAME or --swarm/);
    expect(() => parseSwarmArgs(["learn", "--agent", "a", "--swarm", "--category", "best-practice", "x"])).toThrow(
      /--agent NAME or --swarm/,
    );
    expect(() => parseSwarmArgs(["learn", "--agent", "a", "--category", "vibes", "x"])).toThrow(/--category must be one of/);
    expect(() => parseSwarmArgs(["learn", "--agent", "a", "--category", "preference"])).toThrow(/needs the learning/);
    expect(() => parseSwarmArgs(["learn", "--swarm", "--claude-md", "--category", "preference", "x"])).toThrow(/for one agent/);
  });
});
