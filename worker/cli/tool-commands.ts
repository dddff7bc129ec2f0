// `swarm tool ...`: each command is one control-server call (the same route
// `swarm mcp` uses), and its answer printed for a person or an agent to read.
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import { type ControlAnswer, type ControlBody, controlCall } from "./control-call";
import { UsageError } from "./swarm-flags";
import type { ToolCommand } from "./tool-args";

async function readSource(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file === "-" ? "/dev/stdin" : file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // Decoded leniently, bytes that are not UTF-8 would reach the app as U+FFFD: not the text the agent wrote.
  if (!isUtf8(bytes)) throw new UsageError(`${file} is not UTF-8 text: nothing was sent (save it as UTF-8)`);
  return bytes.toString("utf8");
}

export async function runToolCommand(cmd: ToolCommand): Promise<ControlAnswer> {
  switch (cmd.action) {
    case "write":
      return controlCall("/tools/write", {
        name: cmd.name,
        source: await readSource(cmd.file),
        ...(cmd.description ? { description: cmd.description } : {}),
        ...(cmd.testInput === undefined ? {} : { testInput: cmd.testInput }),
        ...(cmd.reason ? { reason: cmd.reason } : {}),
        builtin: cmd.builtin,
      });
    case "run":
      return controlCall("/tools/run", { name: cmd.name, ...(cmd.input === undefined ? {} : { input: cmd.input }) });
    case "delete":
      return controlCall("/tools/delete", { name: cmd.name, ...(cmd.reason ? { reason: cmd.reason } : {}) });
    case "list":
      return controlCall("/tools/list", {});
  }
}

type ToolListing = { tools?: Array<{ name: string; version: number; description: string }>; policy?: { reason?: string } };

/** Prints a successful answer; `swarm tool run` prints the tool's output as JSON and nothing else. */
export function printToolAnswer(cmd: ToolCommand, body: ControlBody): number {
  switch (cmd.action) {
    case "run":
      console.log(JSON.stringify(body.output ?? null, null, 2));
      break;
    case "list": {
      const { tools = [], policy } = body as ToolListing;
      if (!tools.length) console.log("no tools of your own yet (swarm tool write <name> --file F)");
      for (const tool of tools) console.log(`${tool.name}  v${tool.version}  ${tool.description}`);
      if (policy?.reason) console.log(`\n(${policy.reason})`);
      break;
    }
    default:
      console.log(String(body.message ?? ""));
      if (cmd.action === "write" && body.testOutput !== undefined) console.log(`test output: ${JSON.stringify(body.testOutput)}`);
  }
  return 0;
}
