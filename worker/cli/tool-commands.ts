// `swarm tool ...`: each command is one control-server call (the same route
// `swarm mcp` uses), and its answer printed for a person or an agent to read.
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import { type ControlAnswer, type ControlBody, controlCall, MAX_CONTROL_BODY_BYTES } from "./control-call";
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

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const LIMIT = `at most ${mebibytes(MAX_CONTROL_BODY_BYTES)} (the worker's limit for one call)`;

/** `--input-file F` / `--test-input-file F`: JSON from a file, or from stdin for `-`; refused above the worker's limit, unsent. */
async function readInputFile(file: string, flag: string): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file === "-" ? "/dev/stdin" : file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (bytes.length > MAX_CONTROL_BODY_BYTES) {
    throw new UsageError(`--${flag}-file ${file} is ${mebibytes(bytes.length)}; a tool's input is ${LIMIT}: nothing was sent`);
  }
  if (!isUtf8(bytes)) throw new UsageError(`${file} is not UTF-8 text: nothing was sent (save it as UTF-8)`);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new UsageError(`--${flag}-file ${file} is not JSON: ${(error as Error).message}`);
  }
}

/** One call, refused here (usage, exit 2) rather than by the control server's 413 when it cannot fit. */
function sized(path: string, body: Record<string, unknown>): Promise<ControlAnswer> {
  const bytes = Buffer.byteLength(JSON.stringify(body));
  if (bytes > MAX_CONTROL_BODY_BYTES) {
    throw new UsageError(`the call is ${mebibytes(bytes)} with its input; a tool's input is ${LIMIT}: nothing was sent`);
  }
  return controlCall(path, body);
}

export async function runToolCommand(cmd: ToolCommand): Promise<ControlAnswer> {
  switch (cmd.action) {
    case "write": {
      const testInput = cmd.testInputFile === undefined ? cmd.testInput : await readInputFile(cmd.testInputFile, "test-input");
      return sized("/tools/write", {
        name: cmd.name,
        source: await readSource(cmd.file),
        ...(cmd.description ? { description: cmd.description } : {}),
        ...(testInput === undefined ? {} : { testInput }),
        ...(cmd.reason ? { reason: cmd.reason } : {}),
        builtin: cmd.builtin,
      });
    }
    case "run": {
      const input = cmd.inputFile === undefined ? cmd.input : await readInputFile(cmd.inputFile, "input");
      return sized("/tools/run", { name: cmd.name, ...(input === undefined ? {} : { input }) });
    }
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
