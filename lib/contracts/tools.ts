// Agent-authored tools (reference 003) and the built-in tools every agent gets over
// MCP and the `swarm` CLI: names, the shapes the worker and the app exchange, and
// what operators see. Shared by the app, the worker, `swarm mcp` and the tests.
import { z } from "zod";

/** Lowercase letters, digits and underscores, starting with a letter (MCP and Claude Code accept these everywhere). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

export const toolNameSchema = z
  .string()
  .trim()
  .regex(TOOL_NAME_PATTERN, "lowercase letters, digits and underscores, starting with a letter, at most 64 characters");

/**
 * The built-in tools served by `swarm mcp` (worker/mcp/builtin-tools.ts describes
 * each). An agent's own tool may not take one of these names.
 */
export const BUILTIN_TOOL_NAMES = [
  "identity_read",
  "identity_write",
  "identity_propose",
  "identity_proposals",
  "memory_search",
  "memory_store",
  "task_progress",
  "task_release",
  "tool_write",
  "tool_delete",
  "tool_list",
  "tool_run",
  "swarm_tasks",
  "swarm_agents",
  "swarm_report",
  "swarm_failures",
  "learn",
] as const;

export function isBuiltinToolName(name: string): boolean {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

/** A free name near `name` for an agent tool that collided with a built-in. */
export function suggestToolName(name: string, taken: readonly string[] = []): string {
  const base = `my_${name}`.slice(0, 60);
  if (!isBuiltinToolName(base) && !taken.includes(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = `${base}_${i}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/** Sandbox limits a tool may ask for with `timeoutMs`, and the default. */
export const TOOL_DEFAULT_TIMEOUT_MS = 10_000;
export const TOOL_MAX_TIMEOUT_MS = 60_000;
export const MAX_TOOL_SOURCE_BYTES = 64 * 1024;
/** A compiled tool bundles what it imports (zod, ...), so it is allowed to be larger than its source. */
export const MAX_TOOL_COMPILED_BYTES = 2 * 1024 * 1024;
/** JSON a tool returns is cut to this many characters before it reaches the agent or the app. */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;

const json = z.unknown();

/** POST /api/worker/tools: a tool the worker compiled and tested, stored as a new version. */
export const workerWriteToolBodySchema = z.strictObject({
  name: toolNameSchema,
  description: z.string().trim().min(1, "a description is required").max(2000),
  source: z.string().min(1).max(MAX_TOOL_SOURCE_BYTES, `at most ${MAX_TOOL_SOURCE_BYTES} bytes of source`),
  compiledCode: z.string().min(1).max(MAX_TOOL_COMPILED_BYTES),
  inputSchema: z.record(z.string(), json),
  timeoutMs: z.number().int().min(100).max(TOOL_MAX_TIMEOUT_MS).nullable().optional(),
  testInput: json,
  testOutput: json,
  testDurationMs: z
    .number()
    .int()
    .min(0)
    .max(10 * 60_000),
  reason: z.string().trim().max(2000).default(""),
  taskId: z.string().max(64).optional(),
});
export type WorkerWriteToolBody = z.infer<typeof workerWriteToolBodySchema>;

export const workerDeleteToolBodySchema = z.strictObject({
  reason: z.string().trim().max(2000).default(""),
  taskId: z.string().max(64).optional(),
});

/** POST /api/worker/tools/{name}/calls: one call of the tool, for the operator's counts. */
export const toolCallReportBodySchema = z.strictObject({
  ok: z.boolean(),
  durationMs: z
    .number()
    .int()
    .min(0)
    .max(10 * 60_000),
  error: z.string().max(2000).optional(),
});

/** What the app decides about a tool change, from the agent's profile and capabilities.yaml. */
export const toolPolicySchema = z.object({
  /** apply: changes take effect at once; propose: an operator approves each; forbidden: refused. */
  changes: z.enum(["apply", "propose", "forbidden"]),
  /** Whether the agent's tools may open network connections in the sandbox. */
  network: z.boolean(),
  /** Why, in words an agent or operator can act on. */
  reason: z.string(),
});
export type ToolPolicy = z.infer<typeof toolPolicySchema>;

/** A registered tool as the worker needs it to serve and run it. */
export const activeToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  versionId: z.string(),
  version: z.number(),
  inputSchema: z.record(z.string(), json),
  timeoutMs: z.number().nullable(),
  compiledCode: z.string(),
});
export type ActiveTool = z.infer<typeof activeToolSchema>;

/** GET /api/worker/tools */
export const workerToolsResponseSchema = z.object({
  tools: z.array(activeToolSchema),
  policy: toolPolicySchema,
  /** `swarm mcp` serves the lead's tools to leads only. */
  lead: z.boolean().default(false),
  /** Built-ins this agent changed (staged and merged on its branch of the built-in repository). */
  builtins: z.array(z.lazy(() => builtinOverrideSchema)).default([]),
});

/** POST /api/worker/tools and DELETE /api/worker/tools/{name} */
export const toolChangeResultSchema = z.object({
  status: z.enum(["applied", "pending"]),
  name: z.string(),
  versionId: z.string(),
  version: z.number(),
});
export type ToolChangeResult = z.infer<typeof toolChangeResultSchema>;

export const TOOL_CHANGE_STATUSES = ["applied", "pending", "rejected"] as const;

export const toolVersionSchema = z.object({
  id: z.string(),
  version: z.number(),
  op: z.enum(["write", "delete"]),
  status: z.enum(TOOL_CHANGE_STATUSES),
  description: z.string(),
  source: z.string(),
  inputSchema: z.record(z.string(), json),
  timeoutMs: z.number().nullable(),
  testInput: json,
  testOutput: json,
  testDurationMs: z.number().nullable(),
  author: z.object({ type: z.string(), id: z.string().nullable(), label: z.string() }),
  reason: z.string(),
  taskId: z.string().nullable(),
  reviewNote: z.string().nullable(),
  reviewedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ToolVersionDto = z.infer<typeof toolVersionSchema>;

export const agentToolSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  deleted: z.boolean(),
  currentVersionId: z.string().nullable(),
  currentVersion: z.number().nullable(),
  pendingChanges: z.number(),
  callCount: z.number(),
  failureCount: z.number(),
  lastCalledAt: z.string().nullable(),
  lastError: z.string().nullable(),
  updatedAt: z.string(),
});
export type AgentToolDto = z.infer<typeof agentToolSchema>;

export const agentToolDetailSchema = agentToolSchema.extend({ versions: z.array(toolVersionSchema) });
export type AgentToolDetailDto = z.infer<typeof agentToolDetailSchema>;

/** PATCH /api/v1/agents/{id}/tools/{name} */
export const updateToolBodySchema = z.strictObject({ enabled: z.boolean() });
/** POST .../tools/{name}/versions/{versionId}/approve|reject */
export const reviewToolChangeBodySchema = z.strictObject({ note: z.string().trim().max(2000).optional() });

/** POST /api/worker/tools/builtin: a change to one of the built-in tools, for this agent only. */
export const workerBuiltinChangeBodySchema = z.strictObject({
  name: toolNameSchema,
  source: z.string().min(1).max(MAX_TOOL_SOURCE_BYTES, `at most ${MAX_TOOL_SOURCE_BYTES} bytes of source`),
  testInput: json,
  reason: z.string().trim().max(2000).default(""),
  taskId: z.string().max(64).optional(),
});
export type WorkerBuiltinChangeBody = z.infer<typeof workerBuiltinChangeBodySchema>;

/**
 * One attempt to change a built-in: merged into the agent's branch, abandoned (failed its
 * test) or refused; where tool changes are proposals, first proposed (tested, waiting for
 * an operator), then rejected, or staged on approval and merged or abandoned.
 */
export const builtinChangeSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(["merged", "abandoned", "refused", "proposed", "rejected"]),
  branch: z.string().nullable(),
  commit: z.string().nullable(),
  source: z.string(),
  testInput: json,
  testOutput: json,
  error: z.string().nullable(),
  reason: z.string(),
  taskId: z.string().nullable(),
  author: z.object({ type: z.string(), id: z.string().nullable(), label: z.string() }),
  /** The operator's decision on a proposed change (null until one is made). */
  review: z.object({ note: z.string().nullable(), reviewedAt: z.string() }).nullable(),
  createdAt: z.string(),
});
export type BuiltinChangeDto = z.infer<typeof builtinChangeSchema>;

/** A built-in as this agent changed it: what `swarm mcp` lists, and the code that turns input into the built-in's arguments. */
export const builtinOverrideSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), json),
  compiledCode: z.string(),
  commit: z.string(),
});
export type BuiltinOverride = z.infer<typeof builtinOverrideSchema>;
