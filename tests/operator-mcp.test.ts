// Read access to the swarm for any MCP client (issue: "an HTTP MCP endpoint with an
// operator token"): the official SDK's client over Streamable HTTP against the real
// server. It lists read-only tools, reads agents, identity, tasks, proposals, memory
// and metrics as the API shows them, refuses callers without an operator token, and
// answers bad arguments with the API's validation message.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentWithWorker, userToken } from "./identity-helpers";
import { admin, client, server, uniqueName } from "./support/client";

type ToolAnswer = { isError?: boolean; content: { type: string; text: string }[] };

async function connect(token: string) {
  const mcp = new Client({ name: "swarmdeck-test", version: "1.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", server().baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return mcp;
}

async function call(mcp: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = (await mcp.callTool({ name, arguments: args })) as ToolAnswer;
  return { isError: answer.isError === true, body: JSON.parse(answer.content[0]?.text ?? "null") };
}

describe("the operators' MCP endpoint", () => {
  let mcp: Client;
  let agent: { id: string; name: string };
  let taskTitle: string;

  beforeAll(async () => {
    const made = await agentWithWorker({ securityProfile: "standard" });
    agent = made.agent;
    const memory = await made.worker.post("/api/worker/memories", {
      name: "Pin the base image",
      content: "Builds broke when the upstream image moved; pin the base image digest in the Dockerfile.",
    });
    expect(memory.status).toBe(201);
    taskTitle = `Rotate the deploy keys ${uniqueName("t")}`;
    expect((await admin().post("/api/v1/tasks", { title: taskTitle, agentId: agent.id })).status).toBe(201);
    mcp = await connect((await userToken("viewer")).token);
  });
  afterAll(async () => mcp?.close());

  it("lists read-only tools with descriptions and input schemas", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "get_task",
      "list_agents",
      "list_proposals",
      "list_tasks",
      "read_identity_file",
      "search_memories",
      "swarm_metrics",
    ]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it("reads what the API shows: agents, identity, tasks, proposals, memory, metrics", async () => {
    // The same list as the API's. Other test files change the swarm meanwhile (new
    // agents, renames, archives; an agent last seen 90 s ago turns offline between two
    // reads), so this test's own agent is compared whole, and the rest by id: every
    // agent the API listed both before and after the call is in the tool's list, and
    // the tool lists none that the API listed neither before nor after.
    type Listed = { id: string };
    const apiList = async (): Promise<Listed[]> => (await admin().get("/api/v1/agents")).body.agents;
    const before = await apiList();
    const agents = await call(mcp, "list_agents");
    const after = await apiList();
    expect(agents.isError).toBe(false);
    const listed: Listed[] = agents.body.agents;
    expect(listed.find((a) => a.id === agent.id)).toEqual(after.find((a) => a.id === agent.id));
    const ids = (list: Listed[]) => list.map((a) => a.id);
    const throughout = ids(before).filter((id) => ids(after).includes(id));
    expect(throughout.filter((id) => !ids(listed).includes(id))).toEqual([]);
    expect(ids(listed).filter((id) => !ids(before).includes(id) && !ids(after).includes(id))).toEqual([]);

    // By name as well as by id.
    const soul = await call(mcp, "read_identity_file", { agent: agent.name, file: "soul" });
    const viaApi = (await admin().get(`/api/v1/agents/${agent.id}/identity/soul`)).body;
    expect(soul.body).toMatchObject({ content: viaApi.content, versionId: viaApi.versionId });

    const tasks = await call(mcp, "list_tasks", { agent: agent.id, status: ["pending"] });
    expect(tasks.body.tasks.map((t: { title: string }) => t.title)).toEqual([taskTitle]);
    const task = await call(mcp, "get_task", { id: tasks.body.tasks[0].id });
    expect(task.body.task).toMatchObject({ title: taskTitle, agentId: agent.id, status: "pending" });
    expect(task.body.events.length).toBeGreaterThan(0);

    const found = await call(mcp, "search_memories", { query: "pin the base image digest", agent: agent.name });
    expect(found.body.results[0]).toMatchObject({ name: "Pin the base image" });

    const proposals = await call(mcp, "list_proposals", { status: "pending", agent: agent.id });
    expect(proposals.body).toEqual((await admin().get(`/api/v1/proposals?status=pending&agentId=${agent.id}`)).body);

    const metrics = await call(mcp, "swarm_metrics", { days: 7, agent: agent.name });
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    expect(metrics.body).toEqual((await admin().get(`/api/v1/metrics/overview?from=${from}&to=${to}&agentId=${agent.id}`)).body);
  });

  it("answers bad arguments and unknown names with the API's error, as a tool error", async () => {
    const badFile = await call(mcp, "read_identity_file", { agent: agent.id, file: "../../etc/passwd" });
    expect(badFile.isError).toBe(true);
    expect(badFile.body.error.code).toBe("validation_failed");
    const noAgent = await call(mcp, "list_tasks", { agent: "nobody-at-all" });
    expect(noAgent.body.error).toMatchObject({ code: "not_found", message: 'Agent "nobody-at-all" not found' });
    const noTask = await call(mcp, "get_task", { id: "no-such-task" });
    expect(noTask.body.error.code).toBe("not_found");
    const tooMany = await call(mcp, "list_tasks", { limit: 5000 });
    expect(tooMany.body.error.code).toBe("validation_failed");
    const unknown = await call(mcp, "delete_agent", { agent: agent.id });
    expect(unknown).toMatchObject({ isError: true, body: { error: { code: "not_found" } } });
  });

  it("refuses arguments no record can hold (a NUL, a lone surrogate) as the API does, whatever the store", async () => {
    const rest = await admin().post("/api/v1/memories/search", { query: "base\u0000image" });
    expect(rest.status).toBe(400);
    expect(rest.body.error.code).toBe("validation_failed");
    for (const [name, args] of [
      ["search_memories", { query: "base\u0000image" }],
      ["get_task", { id: "task\u0000" }],
      ["list_tasks", { q: "deploy\ud800keys" }],
    ] as const) {
      const answer = await call(mcp, name, args);
      expect(answer.isError, name).toBe(true);
      expect(answer.body.error, name).toMatchObject({ code: "validation_failed", details: [{ path: Object.keys(args)[0] }] });
    }
  });

  it("takes an operator API token only", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    };
    const headers = { accept: "application/json, text/event-stream" };
    const anonymous = await client().post("/api/mcp", initialize, { headers });
    expect(anonymous.status).toBe(401);
    const { worker } = await agentWithWorker();
    const asWorker = await worker.post("/api/mcp", initialize, { headers });
    expect(asWorker.status).toBe(403);
    expect(asWorker.body.error.code).toBe("forbidden");
    const asOperator = await admin().post("/api/mcp", initialize, { headers });
    expect(asOperator.status).toBe(200);
    expect(asOperator.body.result.serverInfo.name).toBe("swarmdeck");
    expect((await admin().get("/api/mcp")).status).toBe(405);
    // What the transport refuses comes back in the API's one error shape, with its reason.
    const noStream = await admin().post("/api/mcp", initialize, { headers: { accept: "application/json" } });
    expect(noStream.status).toBe(406);
    expect(noStream.body.error).toMatchObject({ code: "not_acceptable", message: expect.stringContaining("text/event-stream") });
    const notRpc = await admin().post("/api/mcp", false, { headers });
    expect(notRpc.status).toBe(400);
    expect(notRpc.body.error.code).toBe("bad_request");
  });

  it("holds requests to the API's 1 MiB body limit (README, Errors)", async () => {
    const headers = { accept: "application/json, text/event-stream" };
    const initialize = (padding: number) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x".repeat(padding), version: "1" } },
    });
    const tooLarge = await admin().post("/api/mcp", initialize(1024 * 1024 + 1), { headers });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe("payload_too_large");
    // Just under the limit it is served as any other request.
    const underLimit = await admin().post("/api/mcp", initialize(1000 * 1000), { headers });
    expect(underLimit.status).toBe(200);
    expect(underLimit.body.result.serverInfo.name).toBe("swarmdeck");
  });
});
