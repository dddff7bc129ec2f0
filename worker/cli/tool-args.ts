// `swarm tool write|run|delete|list`: argument parsing, apart from any I/O.
import { TOOL_NAME_PATTERN } from "../../lib/contracts/tools";
import { required, split, UsageError } from "./swarm-flags";

export const TOOL_USAGE = `  swarm tool write <name> --file F [--description D] [--test-input JSON | --test-input-file F] [--reason R] [--builtin]
  swarm tool run <name> [--input JSON | --input-file F]   (F: a JSON file, - for stdin)
  swarm tool delete <name> [--reason R]
  swarm tool list`;

export type ToolCommand =
  | {
      command: "tool";
      action: "write";
      name: string;
      file: string;
      description?: string;
      testInput?: unknown;
      /** A JSON file (or - for stdin) holding the test input: inputs too big for a command line. */
      testInputFile?: string;
      reason?: string;
      builtin: boolean;
    }
  | { command: "tool"; action: "run"; name: string; input?: unknown; inputFile?: string }
  | { command: "tool"; action: "delete"; name: string; reason?: string }
  | { command: "tool"; action: "list" };

function json(flag: string, text: string | true | undefined): unknown {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${flag} is not JSON: ${(error as Error).message}`);
  }
}

/** `--x JSON` or `--x-file F`, not both: an input too big for a command line comes in a file (or on stdin). */
function inputFlags(flags: Map<string, string | true>, flag: string): { value?: unknown; file?: string } {
  const file = optional(flags, `${flag}-file`);
  if (file !== undefined && flags.has(flag)) throw new UsageError(`give --${flag} or --${flag}-file, not both`);
  return file !== undefined ? { file } : { value: json(flag, flags.get(flag)) };
}

function toolName(action: string, positional: string[]): string {
  const [name, ...extra] = positional;
  if (!name) throw new UsageError(`swarm tool ${action} needs a tool name`);
  if (!TOOL_NAME_PATTERN.test(name)) throw new UsageError(`"${name}" is not a tool name (lowercase letters, digits and underscores)`);
  if (extra.length) throw new UsageError(`unexpected argument(s): ${extra.join(" ")}`);
  return name;
}

function optional(flags: Map<string, string | true>, name: string): string | undefined {
  const value = flags.get(name);
  return typeof value === "string" ? value : undefined;
}

export function parseToolArgs(args: string[]): ToolCommand {
  const [action, ...rest] = args;
  switch (action) {
    case "write": {
      const { positional, flags } = split(rest, ["builtin"], ["file", "description", "test-input", "test-input-file", "reason", "builtin"]);
      const testInput = inputFlags(flags, "test-input");
      return {
        command: "tool",
        action,
        name: toolName(action, positional),
        file: required(flags, "file"),
        description: optional(flags, "description"),
        testInput: testInput.value,
        ...(testInput.file === undefined ? {} : { testInputFile: testInput.file }),
        reason: optional(flags, "reason"),
        builtin: flags.has("builtin"),
      };
    }
    case "run": {
      const { positional, flags } = split(rest, [], ["input", "input-file"]);
      const input = inputFlags(flags, "input");
      return {
        command: "tool",
        action,
        name: toolName(action, positional),
        input: input.value,
        ...(input.file === undefined ? {} : { inputFile: input.file }),
      };
    }
    case "delete": {
      const { positional, flags } = split(rest, [], ["reason"]);
      return { command: "tool", action, name: toolName(action, positional), reason: optional(flags, "reason") };
    }
    case "list": {
      const { positional } = split(rest, [], []);
      if (positional.length) throw new UsageError(`unexpected argument(s): ${positional.join(" ")}`);
      return { command: "tool", action };
    }
    default:
      throw new UsageError(`swarm tool needs write, run, delete or list, not ${JSON.stringify(action ?? "")}`);
  }
}
