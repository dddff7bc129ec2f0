// `swarm`: the agent's own way to the app, on its PATH during a task. It talks to
// the worker's local control server (SWARMDECK_CONTROL_URL + a per-task secret),
// which adds the worker's credentials; the agent never holds the worker token.
import { readFile } from "node:fs/promises";
import { CONTROL_HEADER, parseSwarmArgs, SWARM_USAGE, type SwarmCommand, UsageError } from "./swarm-args";

type Body = {
  error?: { code?: string; message?: string };
  status?: string;
  versionId?: string;
  proposalId?: string;
  results?: Array<{ name: string; content: string; score: number; scope: string; source: string }>;
  ids?: number[];
};
type Answer = { status: number; body: Body | null };

async function call(path: string, body: unknown): Promise<Answer> {
  const url = process.env.SWARMDECK_CONTROL_URL;
  const secret = process.env.SWARMDECK_CONTROL_SECRET;
  if (!url || !secret) throw new UsageError("swarm only works inside a Swarmdeck task (SWARMDECK_CONTROL_URL is not set)");
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", [CONTROL_HEADER]: secret },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Body | null = null;
  try {
    parsed = JSON.parse(text) as Body;
  } catch {
    parsed = { error: { code: "bad_answer", message: text.slice(0, 300) } };
  }
  return { status: response.status, body: parsed };
}

async function readInput(file: string): Promise<string> {
  try {
    return await readFile(file === "-" ? "/dev/stdin" : file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function run(cmd: SwarmCommand): Promise<Answer | null> {
  switch (cmd.command) {
    case "help":
      console.log(SWARM_USAGE);
      return null;
    case "identity":
      return call("/identity", {
        kind: cmd.kind,
        content: await readInput(cmd.file),
        reason: cmd.reason,
        mode: cmd.mode,
        userRequest: cmd.userRequest,
      });
    case "progress":
      return call("/progress", { note: cmd.note });
    case "memory-search":
      return call("/memory/search", {
        query: cmd.query,
        ...(cmd.limit ? { limit: cmd.limit } : {}),
        ...(cmd.scope ? { scope: cmd.scope } : {}),
      });
    case "memory-store":
      return call("/memory/store", { name: cmd.name, content: await readInput(cmd.file), scope: cmd.scope });
    case "sync":
      // Claude Code hooks pipe a JSON event on stdin; the sync reads the workspace itself.
      return call("/sync", {});
  }
}

function print(cmd: SwarmCommand, answer: Answer): number {
  const { status } = answer;
  const body = answer.body ?? {};
  if (status >= 400) {
    const error = body?.error;
    console.error(`swarm: ${status} ${error?.code ?? "error"}: ${error?.message ?? JSON.stringify(body)}`);
    return 1;
  }
  switch (cmd.command) {
    case "identity":
      if (body.status === "applied") console.log(`applied: ${cmd.kind} is now version ${body.versionId}`);
      else
        console.log(
          `proposed: ${cmd.kind} waits for an operator's review (proposal ${body.proposalId})${body.status === "conflict_proposed" ? "; the file had changed since your task started" : ""}`,
        );
      break;
    case "progress":
      console.log("progress noted");
      break;
    case "memory-search":
      if (!body.results?.length) console.log("no memories matched");
      for (const result of body.results ?? []) {
        console.log(`# ${result.name}  (score ${Number(result.score).toFixed(2)}, ${result.scope}, ${result.source})\n${result.content}\n`);
      }
      break;
    case "memory-store":
      console.log(`stored: ${body.ids?.length ?? 0} chunk(s)`);
      break;
    case "sync":
      break;
    case "help":
      break;
  }
  return 0;
}

async function main() {
  let cmd: SwarmCommand;
  try {
    cmd = parseSwarmArgs(process.argv.slice(2));
    const answer = await run(cmd);
    process.exitCode = answer ? print(cmd, answer) : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`swarm: ${error.message}\n\n${SWARM_USAGE}`);
      process.exitCode = 2;
      return;
    }
    console.error(`swarm: could not reach the worker: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

await main();
