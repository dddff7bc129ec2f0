// Arguments of the lead's `swarm` commands: `swarm swarm tasks|task|agents|report|failures|outcomes`
// and `swarm learn`. The app decides who may use them (lead agents only); these
// only turn words into the query or body the worker forwards.
import { LEARNING_CATEGORIES } from "../../lib/contracts/memory";
import { TASK_STATUSES } from "../../lib/contracts/tasks";
import { type Flags, required, split, UsageError } from "./swarm-flags";

export const LEAD_USAGE = `lead agents only:
  swarm swarm tasks [--agent NAME] [--status S,S] [--tag T] [--since 24h|7d|DATE] [--until ...] [--search Q] [--limit N] [--json]
  swarm swarm task <id> [--json]
  swarm swarm agents [--json]
  swarm swarm report [--to YYYY-MM-DD] [--json]
  swarm swarm failures [--since 7d] [--until DATE] [--agent NAME] [--json]
  swarm swarm outcomes --agent NAME [--json]
  swarm learn --agent NAME --category C "learning" [--claude-md]
  swarm learn --swarm --category C "learning"
categories: ${LEARNING_CATEGORIES.join(", ")}`;

export type SwarmView = "tasks" | "task" | "agents" | "report" | "failures" | "outcomes";

export type LeadCommand =
  | { command: "swarm"; view: SwarmView; query: Record<string, string>; id?: string; json: boolean }
  | {
      command: "learn";
      body: { targetAgent?: string; scope: "agent" | "swarm"; category: string; learning: string; addToClaudeMd: boolean };
    };

const VIEW_FLAGS: Record<SwarmView, string[]> = {
  tasks: ["agent", "status", "tag", "since", "until", "search", "limit", "cursor"],
  task: [],
  agents: [],
  report: ["to"],
  failures: ["agent", "since", "until"],
  outcomes: ["agent"],
};

function query(flags: Flags, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = flags.get(name);
    if (typeof value === "string") out[name === "search" ? "q" : name] = value;
  }
  return out;
}

export function parseSwarmView(args: string[]): LeadCommand {
  const [view, ...rest] = args;
  if (!view || !(view in VIEW_FLAGS)) {
    throw new UsageError(`swarm swarm needs one of ${Object.keys(VIEW_FLAGS).join(", ")}, not ${JSON.stringify(view ?? "")}`);
  }
  const name = view as SwarmView;
  const { positional, flags } = split(rest, ["json"], [...VIEW_FLAGS[name], "json"]);
  const json = flags.has("json");
  if (name === "task") {
    const [id, ...extra] = positional;
    if (!id || extra.length) throw new UsageError("swarm swarm task needs one task id");
    return { command: "swarm", view: name, query: {}, id, json };
  }
  if (positional.length) throw new UsageError(`unexpected argument(s): ${positional.join(" ")}`);
  if (name === "outcomes") required(flags, "agent");
  const status = flags.get("status");
  if (typeof status === "string") {
    const unknown = status.split(",").filter((s) => !(TASK_STATUSES as readonly string[]).includes(s));
    if (unknown.length) throw new UsageError(`unknown status ${unknown.join(", ")} (${TASK_STATUSES.join(", ")})`);
  }
  const limit = flags.get("limit");
  if (typeof limit === "string" && !/^\d{1,3}$/.test(limit)) throw new UsageError("--limit must be a whole number from 1 to 200");
  return { command: "swarm", view: name, query: query(flags, VIEW_FLAGS[name]), json };
}

export function parseLearn(args: string[]): LeadCommand {
  const { positional, flags } = split(args, ["swarm", "claude-md"], ["agent", "swarm", "category", "claude-md"]);
  const learning = positional.join(" ").trim();
  if (!learning) throw new UsageError('swarm learn needs the learning: swarm learn --agent NAME --category C "what to do differently"');
  const category = required(flags, "category");
  if (!(LEARNING_CATEGORIES as readonly string[]).includes(category)) {
    throw new UsageError(`--category must be one of ${LEARNING_CATEGORIES.join(", ")}`);
  }
  const agent = flags.get("agent");
  const swarm = flags.has("swarm");
  if (swarm === (typeof agent === "string")) throw new UsageError("swarm learn needs either --agent NAME or --swarm");
  if (swarm && flags.has("claude-md")) throw new UsageError("--claude-md is for one agent (--agent NAME)");
  return {
    command: "learn",
    body: {
      ...(typeof agent === "string" ? { targetAgent: agent } : {}),
      scope: swarm ? "swarm" : "agent",
      category,
      learning,
      addToClaudeMd: flags.has("claude-md"),
    },
  };
}
