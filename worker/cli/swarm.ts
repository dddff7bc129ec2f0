// `swarm`: the agent's own way to the app, on its PATH during a task. It talks to
// the worker's local control server (SWARMDECK_CONTROL_URL + a per-task secret),
// which adds the worker's credentials; the agent never holds the worker token.
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import type { AgentDecision } from "../../lib/contracts/identity";
import { controlCall, fieldProblems } from "./control-call";
import { parseSwarmArgs, SWARM_USAGE, type SwarmCommand, UsageError } from "./swarm-args";
import { printLead } from "./swarm-lead-print";
import { printToolAnswer, runToolCommand } from "./tool-commands";

type Body = {
  error?: { code?: string; message?: string; details?: unknown };
  status?: string;
  versionId?: string;
  unchanged?: boolean;
  proposalId?: string;
  proposals?: AgentDecision[];
  results?: Array<{ name: string; content: string; score: number; scope: string; source: string }>;
  ids?: number[];
};
type Answer = { status: number; body: Body | null };

const call = (path: string, body: unknown) => controlCall(path, body) as Promise<Answer>;

async function readInput(file: string): Promise<string> {
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
      });
    case "identity-proposals":
      return call("/proposals", {});
    case "progress":
      return call("/progress", { note: cmd.note });
    case "release":
      return call("/release", { reason: cmd.reason });
    case "memory-search":
      return call("/memory/search", {
        query: cmd.query,
        ...(cmd.limit ? { limit: cmd.limit } : {}),
        ...(cmd.scope ? { scope: cmd.scope } : {}),
      });
    case "memory-store":
      return call("/memory/store", { name: cmd.name, content: await readInput(cmd.file), scope: cmd.scope });
    case "tool":
      return runToolCommand(cmd);
    case "mcp": {
      const { serveMcp } = await import("../mcp/server");
      await serveMcp();
      return null;
    }
    case "sync":
      // Claude Code hooks pipe a JSON event on stdin; the sync reads the workspace itself.
      return call("/sync", {});
    case "swarm":
      return call(`/swarm/${cmd.view}`, { query: cmd.query, ...(cmd.id ? { id: cmd.id } : {}) });
    case "learn":
      return call("/learn", cmd.body);
  }
}

function formatProposals(proposals: AgentDecision[]): string {
  if (proposals.length === 0) return "no proposals yet";
  return proposals
    .map((p) => {
      const when = (p.decidedAt ?? p.createdAt).slice(0, 16).replace("T", " ");
      const status = p.status === "approved" && p.edited ? "approved with edits" : p.status;
      const lines = [`# ${p.path}: ${status} (${when}, proposal ${p.proposalId})`, `reason: ${p.reason}`];
      if (p.note) lines.push(`${p.status === "refused" ? "why" : "note"}: ${p.note}`);
      if (p.appliedContent !== null && p.edited) lines.push(`applied text:\n${p.appliedContent.trimEnd()}`);
      if (p.status === "refused" || p.status === "rejected") lines.push(`your text:\n${p.proposedContent.trimEnd()}`);
      return lines.join("\n");
    })
    .join("\n\n");
}

function print(cmd: SwarmCommand, answer: Answer): number {
  const { status } = answer;
  const body = answer.body ?? {};
  if (status >= 400) {
    const error = body?.error;
    console.error(`swarm: ${status} ${error?.code ?? "error"}: ${error?.message ?? JSON.stringify(body)}`);
    const fields = fieldProblems(error?.details);
    if (fields) console.error(fields);
    const logs = (error?.details as { logs?: string } | undefined)?.logs;
    if (logs) console.error(`output:\n${logs}`);
    return 1;
  }
  switch (cmd.command) {
    case "identity":
      if (body.status === "applied" && body.unchanged)
        console.log(`unchanged: ${cmd.kind} is already this text (version ${body.versionId}); nothing to review`);
      else if (body.status === "applied") console.log(`applied: ${cmd.kind} is now version ${body.versionId}`);
      else
        console.log(
          `proposed: ${cmd.kind} waits for an operator's review (proposal ${body.proposalId})${body.status === "conflict_proposed" ? "; the file had changed since your task started" : ""}`,
        );
      break;
    case "identity-proposals":
      console.log(formatProposals(body.proposals ?? []));
      break;
    case "progress":
      console.log("progress noted");
      break;
    case "release":
      console.log("given back: stop now; the worker returns the task with your reason (it counts as an attempt)");
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
    case "tool":
      return printToolAnswer(cmd, answer.body ?? {});
    case "sync":
    case "mcp":
    case "help":
      break;
    case "swarm":
    case "learn":
      console.log(printLead(cmd, body));
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
