// Read access to the swarm for any MCP client (Claude Desktop, an IDE, a script),
// served at /api/mcp over MCP's Streamable HTTP transport with an operator API
// token. Stateless: every POST builds a server, answers, and is done, so any app
// instance can answer any request. Every tool reads through the same functions and
// the same zod schemas as the /api/v1 routes, so an MCP client sees exactly what the
// API and the pages show. Nothing here writes (the agent's own MCP server, `swarm mcp`
// in worker/mcp/server.ts, is where agents act).
import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { listAgents } from "@/lib/agents/agents";
import { MAX_BODY_BYTES } from "@/lib/contracts/common";
import { IDENTITY_KINDS, kindToSlug, listProposalsQuerySchema, proposalStatusSchema } from "@/lib/contracts/identity";
import { operatorSearchBodySchema } from "@/lib/contracts/memory";
import { listTasksQuerySchema, taskStatusSchema } from "@/lib/contracts/tasks";
import { db } from "@/lib/db";
import { ApiError, type ErrorCode, notFound, toApiError } from "@/lib/errors";
import { findJsonProblem } from "@/lib/http/well-formed";
import { listProposals } from "@/lib/identity/proposals";
import { getIdentityFile } from "@/lib/identity/read";
import { ensureMemoryJobs } from "@/lib/memory/jobs";
import { searchMemories } from "@/lib/memory/search";
import { resolveRange } from "@/lib/metrics/range";
import { getOverview } from "@/lib/metrics/task-metrics";
import { getTaskWithEvents, listTasks } from "@/lib/tasks/operator-tasks";

const agentRef = z.string().trim().min(1).max(64).describe("The agent's id or its name (slug), as list_agents gives them");
const SLUGS = IDENTITY_KINDS.map(kindToSlug) as [string, ...string[]];

/** An agent named by id or slug; archived agents are not found. */
async function resolveAgent(ref: string): Promise<string> {
  const agent = await db.agent.findFirst({ where: { archivedAt: null, OR: [{ id: ref }, { name: ref }] }, select: { id: true } });
  if (!agent) throw notFound(`Agent "${ref}"`);
  return agent.id;
}

type Tool = { name: string; description: string; schema: z.ZodObject; run: (args: never) => Promise<unknown> };

function tool<S extends z.ZodObject>(name: string, description: string, schema: S, run: (args: z.infer<S>) => Promise<unknown>): Tool {
  return { name, description, schema, run: run as (args: never) => Promise<unknown> };
}

export const OPERATOR_MCP_TOOLS: Tool[] = [
  tool(
    "list_agents",
    "Every active agent in the swarm: id, name, display name, role (worker or lead), security profile, and whether a worker is connected.",
    z.object({}),
    async () => ({ agents: await listAgents() }),
  ),
  tool(
    "read_identity_file",
    "The current text of one of an agent's identity files (soul, identity, user, agent, tools, claude, heartbeat, bootstrap, setup-script, capabilities) with its version id.",
    z.object({ agent: agentRef, file: z.enum(SLUGS).describe("Which file, e.g. soul for SOUL.md") }),
    async ({ agent, file }) => {
      const kind = IDENTITY_KINDS.find((k) => kindToSlug(k) === file) ?? "SOUL";
      return getIdentityFile({ agentId: await resolveAgent(agent), kind });
    },
  ),
  tool(
    "list_tasks",
    "Tasks, newest first, optionally filtered by status, agent, tag or words in the title. Answers at most `limit` tasks and a cursor for the next page.",
    z.object({
      status: z.array(taskStatusSchema).optional().describe("Only these statuses, e.g. ['failed']"),
      agent: agentRef.optional(),
      tag: z.string().max(64).optional(),
      q: z.string().max(200).optional().describe("Words in the title"),
      limit: z.number().int().min(1).max(200).default(20),
      cursor: z.string().max(64).optional(),
    }),
    async ({ status, agent, ...rest }) =>
      listTasks(
        listTasksQuerySchema.parse({
          ...rest,
          ...(status?.length ? { status: status.join(",") } : {}),
          ...(agent ? { agentId: await resolveAgent(agent) } : {}),
        }),
      ),
  ),
  tool(
    "get_task",
    "One task with its description, status, attempts, output, failure reason and its event log.",
    z.object({ id: z.string().trim().min(1).max(64).describe("The task id") }),
    async ({ id }) => getTaskWithEvents({ id }),
  ),
  tool(
    "search_memories",
    "Search the swarm's memory (lessons, task summaries, files agents stored) by meaning and keywords; optionally one agent's memories and the swarm's.",
    z.object({
      query: z.string().trim().min(1).max(2000),
      agent: agentRef.optional(),
      limit: z.number().int().min(1).max(50).default(10),
    }),
    async ({ query, agent, limit }) => {
      const input = operatorSearchBodySchema.parse({ query, limit, ...(agent ? { agentId: await resolveAgent(agent) } : {}) });
      ensureMemoryJobs();
      return searchMemories({ ...input, viewer: { kind: "operator" }, record: { kind: "search", agentId: input.agentId ?? null } });
    },
  ),
  tool(
    "list_proposals",
    "Changes agents proposed to their own identity files: the review queue (pending, oldest first) or decided ones, with the proposed text and the reason.",
    z.object({
      status: proposalStatusSchema.optional(),
      agent: agentRef.optional(),
      limit: z.number().int().min(1).max(200).default(20),
    }),
    async ({ status, agent, limit }) =>
      listProposals(listProposalsQuerySchema.parse({ status, limit, ...(agent ? { agentId: await resolveAgent(agent) } : {}) })),
  ),
  tool(
    "swarm_metrics",
    "How the swarm is doing over the last `days` days (default 7): tasks completed and failed, failure rate, durations and throughput, for the swarm or one agent.",
    z.object({ days: z.number().int().min(1).max(90).default(7), agent: agentRef.optional() }),
    async ({ days, agent }) => {
      const to = new Date().toISOString().slice(0, 10);
      const from = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
      return getOverview({ range: resolveRange({ from, to }), ...(agent ? { agentId: await resolveAgent(agent) } : {}) });
    },
  ),
];

const LISTING = OPERATOR_MCP_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: z.toJSONSchema(t.schema, { io: "input" }) as { type: "object"; [key: string]: unknown },
  annotations: { readOnlyHint: true, openWorldHint: false },
}));

function text(value: unknown, isError = false): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }], ...(isError ? { isError: true } : {}) };
}

function buildServer(): Server {
  const server = new Server(
    { name: "swarmdeck", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "Swarmdeck, read-only: the swarm's agents and their identity files, tasks, the identity proposals waiting for review, memory search and metrics.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: LISTING }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const found = OPERATOR_MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!found) {
      return text({ error: { code: "not_found", message: `No tool "${request.params.name}"; list_tools names them` } }, true);
    }
    try {
      // As lib/api/handler.ts refuses them in every other body: text no record can hold
      // (a NUL on PostgreSQL, a lone surrogate) is a 400, alike on both stores, never a driver's error.
      const problem = findJsonProblem(request.params.arguments ?? {});
      if (problem) throw new ApiError("validation_failed", "The request is not valid", [problem]);
      const args = found.schema.parse(request.params.arguments ?? {});
      return text(await found.run(args as never));
    } catch (error) {
      const apiError = toApiError(error, `mcp ${found.name}`);
      return text(
        { error: { code: apiError.code, message: apiError.message, ...(apiError.details ? { details: apiError.details } : {}) } },
        true,
      );
    }
  });
  return server;
}

const TRANSPORT_ERRORS: Record<number, ErrorCode> = {
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/**
 * Answers one Streamable HTTP request (stateless, JSON answers). The caller has
 * authenticated it. A request the transport refuses (wrong Accept or Content-Type,
 * not JSON-RPC) gets the API's one error shape with the transport's reason, like
 * every other /api answer; JSON-RPC errors inside a 200 are the protocol's own.
 */
export async function handleOperatorMcp(req: Request): Promise<Response> {
  const server = buildServer();
  // The API's one body limit (1 MiB), not the SDK's default of 4 MiB: a read-only endpoint takes small requests.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(req);
    if (response.status < 400) return response;
    const answer = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    const message = answer?.error?.message ?? `The MCP transport refused the request (${response.status})`;
    throw new ApiError(TRANSPORT_ERRORS[response.status] ?? "bad_request", message, answer?.error ? { jsonrpc: answer.error } : undefined);
  } finally {
    void server.close();
  }
}
