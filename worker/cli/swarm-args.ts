// Argument parsing for the `swarm` CLI, apart from any I/O so it can be tested.
import { slugToKind } from "../../lib/contracts/identity";
import { required, split, UsageError } from "./swarm-flags";
import { LEAD_USAGE, type LeadCommand, parseLearn, parseSwarmView } from "./swarm-lead-args";
import { parseToolArgs, TOOL_USAGE, type ToolCommand } from "./tool-args";

export { UsageError };

/** The header carrying the per-task secret from the CLI to the worker's control server. */
export const CONTROL_HEADER = "x-swarmdeck-control";

export const SWARM_USAGE = `usage:
  swarm identity propose <kind> --file F --reason R
  swarm identity write <kind> --file F --reason R
  swarm identity proposals            (your proposals and the operators' decisions)
  swarm progress "note"
  swarm release "reason"        give the task back (it counts as an attempt)
  swarm memory search "query" [--limit N] [--scope agent|swarm|all]
  swarm memory store --name N --file F [--scope agent|swarm]
${TOOL_USAGE}
  swarm mcp                       # the same tools as an MCP server on stdio
  swarm sync
kinds: soul, identity, user, tools, claude, heartbeat, setup-script (agent, capabilities and bootstrap are locked)
${LEAD_USAGE}`;

export type SwarmCommand =
  | { command: "identity"; mode: "write" | "propose"; kind: string; file: string; reason: string }
  | { command: "identity-proposals" }
  | { command: "progress"; note: string }
  | { command: "release"; reason: string }
  | { command: "memory-search"; query: string; limit?: number; scope?: "agent" | "swarm" | "all" }
  | { command: "memory-store"; name: string; file: string; scope: "agent" | "swarm" }
  | ToolCommand
  | { command: "mcp" }
  | { command: "sync"; hook?: string }
  | { command: "help" }
  | LeadCommand;

export function parseSwarmArgs(argv: string[]): SwarmCommand {
  const [group, ...rest] = argv;
  if (!group || group === "help" || group === "--help" || group === "-h") return { command: "help" };
  if (group === "identity") {
    if (rest.includes("--user-request"))
      throw new UsageError(
        "--user-request is gone: only an operator can make a change an explicit request, by granting your task identity rights",
      );
    if (rest[0] === "proposals") {
      if (rest.length > 1) throw new UsageError(`unexpected argument(s): ${rest.slice(1).join(" ")}`);
      return { command: "identity-proposals" };
    }
    const { positional, flags } = split(rest, [], ["file", "reason"]);
    const [mode, kind, ...extra] = positional;
    if (mode !== "write" && mode !== "propose")
      throw new UsageError(`swarm identity needs "write", "propose" or "proposals", not ${JSON.stringify(mode ?? "")}`);
    if (!kind) throw new UsageError("swarm identity needs a kind (e.g. soul, tools, setup-script)");
    if (!slugToKind(kind)) throw new UsageError(`unknown kind ${JSON.stringify(kind)}`);
    if (extra.length) throw new UsageError(`unexpected argument(s): ${extra.join(" ")}`);
    return {
      command: "identity",
      mode,
      kind,
      file: required(flags, "file"),
      reason: required(flags, "reason"),
    };
  }
  if (group === "progress") {
    const { positional } = split(rest, [], []);
    const note = positional.join(" ").trim();
    if (!note) throw new UsageError('swarm progress needs a note: swarm progress "what I am doing"');
    return { command: "progress", note };
  }
  if (group === "release") {
    const { positional } = split(rest, [], []);
    const reason = positional.join(" ").trim();
    if (!reason) throw new UsageError('swarm release needs a reason: swarm release "why I am giving the task back"');
    return { command: "release", reason };
  }
  if (group === "memory") {
    const [action, ...more] = rest;
    if (action === "search") {
      const { positional, flags } = split(more, [], ["limit", "scope"]);
      const query = positional.join(" ").trim();
      if (!query) throw new UsageError('swarm memory search needs a query: swarm memory search "words"');
      const limitText = flags.get("limit");
      const limit = typeof limitText === "string" ? Number(limitText) : undefined;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 50))
        throw new UsageError("--limit must be a whole number from 1 to 50");
      const scope = flags.get("scope");
      if (scope !== undefined && scope !== "agent" && scope !== "swarm" && scope !== "all")
        throw new UsageError("--scope must be agent, swarm or all");
      return { command: "memory-search", query, ...(limit ? { limit } : {}), ...(scope ? { scope } : {}) };
    }
    if (action === "store") {
      const { positional, flags } = split(more, [], ["name", "file", "scope"]);
      if (positional.length) throw new UsageError(`unexpected argument(s): ${positional.join(" ")}`);
      const scope = flags.get("scope") ?? "agent";
      if (scope !== "agent" && scope !== "swarm") throw new UsageError("--scope must be agent or swarm");
      return { command: "memory-store", name: required(flags, "name"), file: required(flags, "file"), scope };
    }
    throw new UsageError(`swarm memory needs "search" or "store", not ${JSON.stringify(action ?? "")}`);
  }
  if (group === "tool") return parseToolArgs(rest);
  if (group === "mcp") {
    if (rest.length) throw new UsageError("swarm mcp takes no arguments");
    return { command: "mcp" };
  }
  if (group === "sync") {
    if (rest.length) throw new UsageError(`swarm sync takes no arguments, not ${rest.join(" ")}`);
    return { command: "sync" };
  }
  if (group === "hook") {
    if (rest.length > 1) throw new UsageError(`unexpected argument(s): ${rest.slice(1).join(" ")}`);
    return { command: "sync", hook: rest[0] };
  }
  if (group === "swarm") return parseSwarmView(rest);
  if (group === "learn") return parseLearn(rest);
  throw new UsageError(`unknown command ${JSON.stringify(group)}`);
}
