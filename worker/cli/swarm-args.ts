// Argument parsing for the `swarm` CLI, apart from any I/O so it can be tested.
import { slugToKind } from "../../lib/contracts/identity";

/** The header carrying the per-task secret from the CLI to the worker's control server. */
export const CONTROL_HEADER = "x-swarmdeck-control";

export const SWARM_USAGE = `usage:
  swarm identity propose <kind> --file F --reason R [--user-request]
  swarm identity write <kind> --file F --reason R [--user-request]
  swarm progress "note"
  swarm memory search "query" [--limit N] [--scope agent|swarm|all]
  swarm memory store --name N --file F [--scope agent|swarm]
  swarm sync
kinds: soul, identity, user, tools, claude, heartbeat, bootstrap, setup-script (agent and capabilities are locked)`;

export type SwarmCommand =
  | { command: "identity"; mode: "write" | "propose"; kind: string; file: string; reason: string; userRequest: boolean }
  | { command: "progress"; note: string }
  | { command: "memory-search"; query: string; limit?: number; scope?: "agent" | "swarm" | "all" }
  | { command: "memory-store"; name: string; file: string; scope: "agent" | "swarm" }
  | { command: "sync"; hook?: string }
  | { command: "help" };

export class UsageError extends Error {}

/** Splits flags (--x value, --x=value, boolean flags) from positional words. */
function split(args: string[], booleans: string[], allowed: string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg.length === 2) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    if (booleans.includes(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith("--"))) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return { positional, flags };
}

function required(flags: Map<string, string | true>, name: string): string {
  const value = flags.get(name);
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value;
}

export function parseSwarmArgs(argv: string[]): SwarmCommand {
  const [group, ...rest] = argv;
  if (!group || group === "help" || group === "--help" || group === "-h") return { command: "help" };
  if (group === "identity") {
    const { positional, flags } = split(rest, ["user-request"], ["file", "reason", "user-request"]);
    const [mode, kind, ...extra] = positional;
    if (mode !== "write" && mode !== "propose")
      throw new UsageError(`swarm identity needs "write" or "propose", not ${JSON.stringify(mode ?? "")}`);
    if (!kind) throw new UsageError("swarm identity needs a kind (e.g. soul, tools, setup-script)");
    if (!slugToKind(kind)) throw new UsageError(`unknown kind ${JSON.stringify(kind)}`);
    if (extra.length) throw new UsageError(`unexpected argument(s): ${extra.join(" ")}`);
    return {
      command: "identity",
      mode,
      kind,
      file: required(flags, "file"),
      reason: required(flags, "reason"),
      userRequest: flags.has("user-request"),
    };
  }
  if (group === "progress") {
    const { positional } = split(rest, [], []);
    const note = positional.join(" ").trim();
    if (!note) throw new UsageError('swarm progress needs a note: swarm progress "what I am doing"');
    return { command: "progress", note };
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
  if (group === "sync" || group === "hook") return { command: "sync", hook: rest[0] };
  throw new UsageError(`unknown command ${JSON.stringify(group)}`);
}
