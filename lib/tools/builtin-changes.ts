// An agent's changes to built-in tools (reference 003): staged on a git branch of
// the app's built-in repository, compiled and tested in the sandbox, merged into
// the agent's own branch on success (the change applies to this agent only) or
// abandoned. Every attempt is recorded (branch, commit, test result) and audited.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { SecurityProfile } from "@/lib/contracts/common";
import type { BuiltinChangeDto, BuiltinOverride, WorkerBuiltinChangeBody } from "@/lib/contracts/tools";
import { isBuiltinToolName } from "@/lib/contracts/tools";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import type { BuiltinToolChange } from "@/lib/generated/prisma/client";
import { BUILTIN_TOOLS } from "../../worker/mcp/builtin-tools";
import { toolPolicyFor } from "./agent-tools";
import { builtinFilePath, ensureBuiltinRepo } from "./builtin-repo";
import { compileTool } from "./sandbox/compile";
import { runInSandbox, type ToolMeta } from "./sandbox/sandbox";
import { stageChange } from "./staging";

type AgentRef = { id: string; name: string; securityProfile: SecurityProfile };

type Tested = { compiledCode: string; meta: ToolMeta; output: unknown };

/** Compile, run with the test input, and check that what execute returns is valid input for the built-in. */
async function testBuiltin(name: string, source: string, testInput: unknown, network: boolean) {
  const compiled = await compileTool(source, { resolveDir: process.cwd() });
  if (!compiled.ok) return { ok: false as const, error: `compile failed:\n${compiled.errors}` };
  const result = await runInSandbox({ compiledCode: compiled.code, input: testInput ?? {}, limits: { timeoutMs: 30_000, network } });
  if (!result.ok) return { ok: false as const, error: `${result.reason}: ${result.error}`, output: result.logs };
  if (result.meta.name !== name) return { ok: false as const, error: `the module is named "${result.meta.name}", not "${name}"` };
  if (result.meta.inputSchema.type !== "object") return { ok: false as const, error: "inputSchema must be an object schema" };
  const builtin = BUILTIN_TOOLS.find((tool) => tool.name === name);
  const args = builtin?.schema.safeParse(result.output);
  if (!args?.success) {
    const issues = args?.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
    return { ok: false as const, error: `execute must return valid arguments for ${name}: ${issues}`, output: result.output };
  }
  const tested: Tested = { compiledCode: compiled.code, meta: result.meta, output: result.output };
  return { ok: true as const, output: result.output, tested };
}

export async function stageBuiltinAsAgent({
  agent,
  body,
  actor,
}: {
  agent: AgentRef;
  body: WorkerBuiltinChangeBody;
  actor: Actor;
}): Promise<BuiltinChangeDto> {
  if (!isBuiltinToolName(body.name) || !BUILTIN_TOOLS.some((tool) => tool.name === body.name)) {
    throw new ApiError("bad_request", `"${body.name}" is not a built-in tool; write your own tool without --builtin`);
  }
  const policy = await toolPolicyFor(agent);
  if (policy.changes !== "apply") {
    throw new ApiError("profile_forbids", `Changing a built-in tool needs tool changes that apply at once: ${policy.reason}`);
  }
  const repoDir = await ensureBuiltinRepo();
  let tested: Tested | null = null;
  const stamp = Date.now().toString(36);
  const staged = await stageChange({
    repoDir,
    target: `agents/${agent.name}`,
    stagingBranch: `staging/${agent.name}/${body.name}-${stamp}`,
    filePath: builtinFilePath(body.name),
    content: body.source,
    message: `${agent.name}: ${body.name}${body.reason ? ` — ${body.reason}` : ""}`,
    test: async (content) => {
      const result = await testBuiltin(body.name, content, body.testInput, policy.network);
      if (result.ok) tested = result.tested;
      return result;
    },
  });
  const passed = tested as Tested | null;
  const row = await db.$transaction(async (tx) => {
    const created = await tx.builtinToolChange.create({
      data: {
        agentId: agent.id,
        toolName: body.name,
        status: staged.outcome,
        branch: staged.branch,
        commit: staged.commit,
        source: body.source,
        compiledCode: staged.ok && passed ? passed.compiledCode : "",
        description: staged.ok && passed ? passed.meta.description : "",
        inputSchema: JSON.stringify(staged.ok && passed ? passed.meta.inputSchema : {}),
        testInput: JSON.stringify(body.testInput ?? null),
        testOutput: JSON.stringify(staged.output ?? null),
        error: staged.error ?? null,
        reason: body.reason,
        taskId: body.taskId ?? null,
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label,
      },
    });
    await appendAudit(tx, {
      actor,
      action: staged.ok ? "tool.builtin_merged" : "tool.builtin_abandoned",
      targetType: "builtin_tool_change",
      targetId: created.id,
      agentId: agent.id,
      data: { name: body.name, outcome: staged.outcome, branch: staged.branch, commit: staged.commit, error: staged.error ?? null },
    });
    return created;
  });
  return toBuiltinChangeDto(row);
}

export function toBuiltinChangeDto(row: BuiltinToolChange): BuiltinChangeDto {
  const parse = (text: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  };
  return {
    id: row.id,
    name: row.toolName,
    status: row.status as BuiltinChangeDto["status"],
    branch: row.branch,
    commit: row.commit,
    source: row.source,
    testInput: parse(row.testInput),
    testOutput: parse(row.testOutput),
    error: row.error,
    reason: row.reason,
    taskId: row.taskId,
    author: { type: row.actorType, id: row.actorId, label: row.actorLabel },
    createdAt: row.createdAt.toISOString(),
  };
}

/** The agent's built-ins as it changed them: the latest merged change of each. */
export async function listBuiltinOverrides({ agentId }: { agentId: string }): Promise<BuiltinOverride[]> {
  const rows = await db.builtinToolChange.findMany({ where: { agentId, status: "merged" }, orderBy: { createdAt: "desc" } });
  const seen = new Set<string>();
  return rows.flatMap((row) => {
    if (seen.has(row.toolName)) return [];
    seen.add(row.toolName);
    return [
      {
        name: row.toolName,
        description: row.description,
        inputSchema: JSON.parse(row.inputSchema) as Record<string, unknown>,
        compiledCode: row.compiledCode,
        commit: row.commit ?? "",
      },
    ];
  });
}

export async function listBuiltinChanges({ agentId }: { agentId: string }): Promise<BuiltinChangeDto[]> {
  const rows = await db.builtinToolChange.findMany({ where: { agentId }, orderBy: { createdAt: "desc" }, take: 200 });
  return rows.map(toBuiltinChangeDto);
}
