// `swarm mcp`: Swarmdeck's tools for the agent as an MCP server on stdio (the
// official SDK), which the worker gives Claude Code. The built-in tools and the
// agent's own tools are all calls to the worker's control server, like every
// `swarm` command: one path to the app, with the same rules. When the agent's
// tools change (here, or through `swarm tool ...`), clients get tools/list_changed.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type ControlAnswer, controlCall, fieldProblems } from "../cli/control-call";
import { BUILTIN_TOOLS } from "./builtin-tools";

const WATCH_EVERY_MS = 2_000;

type OwnTool = { name: string; description: string; inputSchema: Record<string, unknown> };
type Listing = { tools: OwnTool[]; builtins?: OwnTool[]; revision: string | null; lead: boolean };

const BUILTIN_LIST = BUILTIN_TOOLS.map((tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: z.toJSONSchema(tool.schema, { io: "input" }) as { type: "object"; [key: string]: unknown },
  leadOnly: Boolean(tool.leadOnly),
}));

function answerToResult(answer: ControlAnswer, pick?: (body: Record<string, unknown>) => unknown): CallToolResult {
  const body = answer.body ?? {};
  if (answer.status >= 400) {
    const error = body.error ?? {};
    const logs = (error.details as { logs?: string } | undefined)?.logs;
    const fields = fieldProblems(error.details);
    const text = `${error.code ?? "error"}: ${error.message ?? "failed"}${fields ? `\n${fields}` : ""}${logs ? `\n\noutput:\n${logs}` : ""}`;
    return { content: [{ type: "text", text }], isError: true };
  }
  const value = pick ? pick(body) : body;
  return { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }] };
}

export async function serveMcp(): Promise<void> {
  const server = new Server(
    { name: "swarmdeck", version: "1.0.0" },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        "Swarmdeck: your identity files, memory, the current task, and tools you write for yourself. Tools you write with tool_write appear in this list at once.",
    },
  );
  let revision: string | null = null;

  async function ownTools(): Promise<Listing> {
    const answer = await controlCall("/tools/list", {});
    if (answer.status >= 400 || !answer.body) return { tools: [], revision, lead: false };
    return answer.body as Listing;
  }

  async function noticeChanges() {
    const now = await ownTools();
    if (revision !== null && now.revision !== revision) await server.sendToolListChanged();
    revision = now.revision;
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const own = await ownTools();
    revision = own.revision;
    const mine = own.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
    }));
    // A built-in the agent changed is listed as it changed it.
    const changed = new Map((own.builtins ?? []).map((tool) => [tool.name, tool]));
    const builtins = BUILTIN_LIST.filter((tool) => own.lead || !tool.leadOnly).map(({ leadOnly: _, ...tool }) => {
      const mine = changed.get(tool.name);
      return mine ? { ...tool, description: mine.description, inputSchema: mine.inputSchema as { type: "object" } } : tool;
    });
    return { tools: [...builtins, ...mine] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const builtin = BUILTIN_TOOLS.find((tool) => tool.name === name);
    if (!builtin) {
      // The agent's own tool: run in the worker's sandbox; the answer is the tool's JSON output.
      return answerToResult(await controlCall("/tools/run", { name, input: args }), (body) => body.output);
    }
    let builtinArgs: unknown = args;
    const own = await ownTools();
    if (own.builtins?.some((tool) => tool.name === name)) {
      // The agent's own version of this built-in turns the input into the built-in's arguments (in the sandbox).
      const mapped = await controlCall("/tools/builtin-args", { name, input: args });
      if (mapped.status >= 400) return answerToResult(mapped);
      builtinArgs = (mapped.body as { args?: unknown }).args;
    }
    const parsed = builtin.schema.safeParse(builtinArgs);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
      return { content: [{ type: "text", text: `invalid arguments: ${issues}` }], isError: true };
    }
    const [path, body] = builtin.route(parsed.data as Record<string, unknown>);
    const answer = await controlCall(path, body);
    if (builtin.changesToolList && answer.status < 300) await noticeChanges().catch(() => undefined);
    return answerToResult(answer);
  });

  await server.connect(new StdioServerTransport());
  // Changes made outside this server (`swarm tool write` in a shell) reach the client too.
  setInterval(() => noticeChanges().catch(() => undefined), WATCH_EVERY_MS).unref();
}
