// The built-in tools `swarm mcp` serves, each one control-server route (the same
// route the `swarm` CLI command of the same job calls). Descriptions are written
// for the model that picks among them.
import { z } from "zod";
import { LEARNING_CATEGORIES } from "../../lib/contracts/memory";
import { TASK_STATUSES } from "../../lib/contracts/tasks";
import { MAX_TOOL_SOURCE_BYTES, toolNameSchema } from "../../lib/contracts/tools";

const AGENT_KINDS = ["soul", "identity", "user", "tools", "claude", "heartbeat", "setup-script"] as const;
const ALL_KINDS = [...AGENT_KINDS, "agent", "capabilities", "bootstrap"] as const;

const identityChange = z.object({
  kind: z
    .enum(AGENT_KINDS)
    .describe("which of your files: soul (SOUL.md), identity, user, tools (TOOLS.md), claude, heartbeat, setup-script"),
  content: z.string().describe("the whole new content of the file (not a diff)"),
  reason: z.string().min(1).describe("why, in one sentence an operator will read"),
});

export type BuiltinTool = {
  name: string;
  description: string;
  schema: z.ZodObject;
  /** The control route and body for a call with valid arguments. */
  route: (args: Record<string, unknown>) => [string, unknown];
  /** Registering, replacing or removing one of the agent's own tools changes the tool list. */
  changesToolList?: boolean;
  /** Served to lead agents only (the app refuses the routes to anyone else anyway). */
  leadOnly?: boolean;
};

const since = z.string().max(40).optional().describe("24h, 7d or a date (YYYY-MM-DD)");
/** The lead's read-only views: a control route `/swarm/<view>` with the query the `swarm swarm` command sends. */
function swarmView(
  name: string,
  view: string,
  description: string,
  schema: z.ZodObject,
  toQuery = (a: Record<string, unknown>) => a,
): BuiltinTool {
  return {
    name,
    description,
    schema,
    leadOnly: true,
    route: (args) => {
      const query = Object.fromEntries(
        Object.entries(toQuery(args))
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]),
      );
      return [`/swarm/${view}`, { query }];
    },
  };
}

export const BUILTIN_TOOLS: BuiltinTool[] = [
  {
    name: "identity_read",
    description: "Read the current content of one of your identity files (SOUL.md, IDENTITY.md, TOOLS.md, capabilities.yaml, ...).",
    schema: z.object({
      kind: z
        .enum(ALL_KINDS)
        .describe("the file: soul, identity, user, tools, claude, heartbeat, setup-script, agent, capabilities, bootstrap"),
    }),
    route: (args) => ["/identity/read", args],
  },
  {
    name: "identity_write",
    description:
      "Change one of your identity files. Your security profile decides: it is applied, or it becomes a proposal an operator reviews, or it is refused. Use identity_propose when you want a review anyway.",
    schema: identityChange,
    route: (args) => ["/identity", { ...args, mode: "write" }],
  },
  {
    name: "identity_propose",
    description:
      "Propose a change to one of your identity files for an operator to approve or reject (you learn the decision in a later task).",
    schema: identityChange,
    route: (args) => ["/identity", { ...args, mode: "propose" }],
  },
  {
    name: "memory_search",
    description:
      "Search what you and the swarm learned before (lessons, past task outcomes, notes). Use it before starting unfamiliar work.",
    schema: z.object({
      query: z.string().min(1).describe("words describing what you need"),
      limit: z.number().int().min(1).max(50).optional().describe("how many results (default 10)"),
      scope: z.enum(["agent", "swarm", "all"]).optional().describe("your own memories, the swarm's shared ones, or both (default)"),
    }),
    route: (args) => ["/memory/search", args],
  },
  {
    name: "memory_store",
    description: "Store a lesson or fact for later tasks. scope swarm shares it with every agent.",
    schema: z.object({
      name: z.string().min(1).max(200).describe("a short title"),
      content: z.string().min(1).describe("the text to remember (markdown)"),
      scope: z.enum(["agent", "swarm"]).optional().describe("agent (default) or swarm"),
    }),
    route: (args) => ["/memory/store", args],
  },
  {
    name: "task_progress",
    description: "Tell the operators what you are doing on the current task (shown live on the task).",
    schema: z.object({ note: z.string().min(1).max(4000).describe("one or two sentences") }),
    route: (args) => ["/progress", args],
  },
  {
    name: "task_release",
    description:
      "Give the current task back (you cannot or should not finish it): it goes back to the queue for a later attempt or another agent. Say why; then stop working on it.",
    schema: z.object({ reason: z.string().min(1).max(2000).describe("why you give it back, for the next attempt") }),
    route: (args) => ["/release", args],
  },
  {
    name: "tool_write",
    description:
      'Write a new tool for yourself, or a new version of one of yours (same name). `source` is a TypeScript module whose default export is { name, description, inputSchema: a zod z.object(...) (import { z } from "zod"), timeoutMs?, execute(input, signal) } returning JSON. It is compiled, tested in a sandbox with testInput (no processes, no files outside its temporary folder, no environment; network only if allowed), and registered at once: call it like any other tool. A failing compile or test stores nothing and returns the error and output.',
    schema: z.object({
      name: toolNameSchema.describe("lowercase_with_underscores; must equal the module's name"),
      source: z.string().min(1).max(MAX_TOOL_SOURCE_BYTES).describe("the TypeScript module"),
      description: z.string().max(2000).optional().describe("what it does (defaults to the module's description)"),
      testInput: z.record(z.string(), z.unknown()).optional().describe("input for the sandbox test; must match inputSchema"),
      reason: z.string().max(2000).optional().describe("why you need it"),
      builtin: z
        .boolean()
        .optional()
        .describe(
          "true to change one of these built-in tools for yourself (same module shape; execute returns the arguments the built-in is called with). Staged on a git branch, tested, merged only if it passes.",
        ),
    }),
    route: (args) => ["/tools/write", args],
    changesToolList: true,
  },
  {
    name: "tool_delete",
    description: "Delete one of your own tools (its history stays for operators).",
    schema: z.object({ name: toolNameSchema, reason: z.string().max(2000).optional() }),
    route: (args) => ["/tools/delete", args],
    changesToolList: true,
  },
  swarmView(
    "swarm_tasks",
    "tasks",
    "Lead: the swarm's tasks, filtered (agent, status, tag, time window, text), newest first.",
    z.object({
      agent: z.string().max(48).optional().describe("an agent's name"),
      status: z.array(z.enum(TASK_STATUSES)).optional(),
      tag: z.string().max(64).optional(),
      since,
      until: since,
      search: z.string().max(200).optional().describe("words in the title or description"),
      limit: z.number().int().min(1).max(200).optional(),
      cursor: z.string().max(100).optional().describe("the nextCursor of the previous answer, for the next page"),
    }),
    ({ search, ...rest }) => ({ ...rest, q: search }),
  ),
  swarmView("swarm_agents", "agents", "Lead: every agent with its status, role, profile and recent results.", z.object({})),
  swarmView(
    "swarm_report",
    "report",
    "Lead: the weekly report (completion, failures, what changed) up to a date.",
    z.object({ to: z.string().max(10).optional().describe("YYYY-MM-DD, default today") }),
  ),
  swarmView(
    "swarm_failures",
    "failures",
    "Lead: recent failed tasks with their reasons, to find recurring problems.",
    z.object({ agent: z.string().max(48).optional(), since, until: since }),
  ),
  {
    name: "learn",
    description:
      "Lead: give one agent (or the whole swarm) a learning it will see in its next task prompts; optionally also a line in that agent's CLAUDE.md.",
    schema: z.object({
      agent: z.string().max(48).optional().describe("the agent's name; leave out with scope swarm"),
      scope: z.enum(["agent", "swarm"]).default("agent"),
      category: z.enum(LEARNING_CATEGORIES),
      learning: z.string().min(1).max(8000).describe("what to do differently, concretely"),
      addToClaudeMd: z.boolean().default(false),
    }),
    leadOnly: true,
    route: ({ agent, ...rest }) => ["/learn", { ...rest, ...(agent ? { targetAgent: agent } : {}) }],
  },
  {
    name: "tool_list",
    description: "List your own tools with their versions, and whether your tool changes apply at once or need approval.",
    schema: z.object({}),
    route: () => ["/tools/list", {}],
  },
];
