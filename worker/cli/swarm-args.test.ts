import { describe, expect, it } from "vitest";
import { parseSwarmArgs, UsageError } from "./swarm-args";

describe("parseSwarmArgs", () => {
  it("parses identity writes and proposals with their flags", () => {
    expect(parseSwarmArgs(["identity", "propose", "soul", "--file", "s.md", "--reason", "kinder"])).toEqual({
      command: "identity",
      mode: "propose",
      kind: "soul",
      file: "s.md",
      reason: "kinder",
    });
    expect(parseSwarmArgs(["identity", "write", "setup-script", "--file=start.sh", "--reason=add rg"])).toMatchObject({
      mode: "write",
      kind: "setup-script",
      file: "start.sh",
      reason: "add rg",
    });
    expect(parseSwarmArgs(["identity", "proposals"])).toEqual({ command: "identity-proposals" });
  });

  it("syncs with `swarm sync` (what Claude Code's hooks run) and refuses arguments it does not take", () => {
    expect(parseSwarmArgs(["sync"])).toEqual({ command: "sync" });
    expect(parseSwarmArgs(["hook", "Stop"])).toEqual({ command: "sync", hook: "Stop" });
    expect(() => parseSwarmArgs(["sync", "garbage", "args"])).toThrow(UsageError);
    expect(() => parseSwarmArgs(["hook", "Stop", "extra"])).toThrow(/unexpected argument\(s\): extra/);
  });

  it("has no way for the agent to declare an explicit request", () => {
    expect(() => parseSwarmArgs(["identity", "write", "soul", "--file", "s.md", "--reason", "r", "--user-request"])).toThrow(
      /only an operator can make a change an explicit request/,
    );
  });

  it("parses progress, memory search and memory store", () => {
    expect(parseSwarmArgs(["progress", "half", "way"])).toEqual({ command: "progress", note: "half way" });
    expect(parseSwarmArgs(["release", "verify.sh", "keeps failing"])).toEqual({ command: "release", reason: "verify.sh keeps failing" });
    expect(() => parseSwarmArgs(["release"])).toThrow(/swarm release needs a reason/);
    expect(parseSwarmArgs(["memory", "search", "build flags", "--limit", "5", "--scope", "swarm"])).toEqual({
      command: "memory-search",
      query: "build flags",
      limit: 5,
      scope: "swarm",
    });
    expect(parseSwarmArgs(["memory", "store", "--name", "tip", "--file", "t.md", "--scope", "swarm"])).toEqual({
      command: "memory-store",
      name: "tip",
      file: "t.md",
      scope: "swarm",
    });
    expect(parseSwarmArgs(["memory", "store", "--name", "tip", "--file", "t.md"])).toMatchObject({ scope: "agent" });
  });

  it.each([
    [["identity", "delete", "soul"], /"write", "propose" or "proposals"/],
    [["identity", "write", "../etc/passwd", "--file", "f", "--reason", "r"], /unknown kind/],
    [["identity", "write", "soul", "--file", "f"], /--reason is required/],
    [["identity", "write", "soul", "--file"], /--file needs a value/],
    [["identity", "write", "soul", "--file", "f", "--reason", "r", "--force"], /unknown option --force/],
    [["progress"], /needs a note/],
    [["memory", "search"], /needs a query/],
    [["memory", "search", "q", "--limit", "500"], /--limit must be/],
    [["memory", "store", "--name", "n", "--file", "f", "--scope", "all"], /--scope must be agent or swarm/],
    [["memory", "forget"], /"search" or "store"/],
    [["deploy"], /unknown command/],
  ])("rejects %j with a clear message", (argv, message) => {
    expect(() => parseSwarmArgs(argv)).toThrow(UsageError);
    expect(() => parseSwarmArgs(argv)).toThrow(message);
  });
});
