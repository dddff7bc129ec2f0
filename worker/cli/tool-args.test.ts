import { describe, expect, it } from "vitest";
import { parseSwarmArgs, UsageError } from "./swarm-args";

describe("swarm tool arguments", () => {
  it("parses write, run, delete and list", () => {
    expect(parseSwarmArgs(["tool", "write", "count_words", "--file", "t.ts", "--test-input", '{"text":"a b"}', "--builtin"])).toEqual({
      command: "tool",
      action: "write",
      name: "count_words",
      file: "t.ts",
      description: undefined,
      testInput: { text: "a b" },
      reason: undefined,
      builtin: true,
    });
    expect(parseSwarmArgs(["tool", "run", "count_words", "--input={}"])).toEqual({
      command: "tool",
      action: "run",
      name: "count_words",
      input: {},
    });
    // Inputs too big for a command line come from a file, or from stdin (-).
    expect(parseSwarmArgs(["tool", "run", "count_words", "--input-file", "-"])).toEqual({
      command: "tool",
      action: "run",
      name: "count_words",
      input: undefined,
      inputFile: "-",
    });
    expect(parseSwarmArgs(["tool", "write", "count_words", "--file", "t.ts", "--test-input-file", "in.json"])).toMatchObject({
      testInput: undefined,
      testInputFile: "in.json",
    });
    expect(parseSwarmArgs(["tool", "delete", "count_words", "--reason", "unused"])).toMatchObject({ action: "delete", reason: "unused" });
    expect(parseSwarmArgs(["tool", "list"])).toEqual({ command: "tool", action: "list" });
    expect(parseSwarmArgs(["mcp"])).toEqual({ command: "mcp" });
  });

  it("refuses what it cannot send, saying why", () => {
    const cases: [string[], string][] = [
      [["tool", "write", "Count-Words", "--file", "t.ts"], "is not a tool name"],
      [["tool", "write", "count"], "--file is required"],
      [["tool", "run", "count", "--input", "{nope"], "--input is not JSON"],
      [["tool", "run"], "needs a tool name"],
      [["tool", "run", "count", "--input", "{}", "--input-file", "in.json"], "give --input or --input-file, not both"],
      [["tool", "fly"], "write, run, delete or list"],
      [["mcp", "extra"], "takes no arguments"],
    ];
    for (const [args, message] of cases) {
      expect(() => parseSwarmArgs(args)).toThrow(UsageError);
      expect(() => parseSwarmArgs(args)).toThrow(message);
    }
  });
});
