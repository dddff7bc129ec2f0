// An agent's changes to built-in tools (reference 003): staged on a git branch of
// the app's built-in repository, compiled and tested in the sandbox, merged into
// the agent's own branch on success (the change applies to this agent only) or
// abandoned. Every attempt is recorded (branch, commit, test result) and audited.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { SecurityProfile } from "@/lib/contracts/common";
import type { BuiltinChangeDto, BuiltinOverride, WorkerBuiltinChangeBody } from "@/lib/contracts/tools";
import { isBuiltinToolName } from "@/lib/contracts/tools";
import { db, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { BuiltinToolChange } from "@/lib/generated/prisma/client";
import { assertOwnTask } from "@/lib/tasks/task-owner";
import { BUILTIN_TOOLS } from "../../worker/mcp/builtin-tools";
import { toolPolicyFor } from "./agent-tools";
import { builtinFilePath, ensureBuiltinRepo } from "./builtin-repo";
import { compileTool } from "./sandbox/compile";
import { runInSandbox, type ToolMeta } from "./sandbox/sandbox";
import { stageChange } from "./staging";

/** Newest first; on PostgreSQL ids break ties in the order SQLite returns them (insertion order). */
const newestFirst = () => (usesPostgres() ? [{ createdAt: "desc" as const }, { id: "desc" as const }] : { createdAt: "desc" as const });

type AgentRef = { id: string; name: string; securityProfile: SecurityProfile };

type Tested = { compiledCode: string; meta: ToolMeta; output: unknown };

/**
 * Compile, run with the test input, and check that what execute returns is valid input for the built-in.
 * The test runs here, on the app's machine, never with network, whatever the agent's tools may use on its
 * worker: a request from here would reach what only the app can (its loopback, its private network, a cloud's
 * metadata address) and the answer would go back to the agent in the test's output or error. A built-in's
 * module only turns the input into the built-in's arguments; it needs no network for that.
 */
async function testBuiltin(name: string, source: string, testInput: unknown) {
  const compiled = await compileTool(source, { resolveDir: process.cwd() });
  if (!compiled.ok) return { ok: false as const, error: `compile failed:\n${compiled.errors}` };
  const result = await runInSandbox({ compiledCode: compiled.code, input: testInput ?? {}, limits: { timeoutMs: 30_000, network: false } });
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

/** What a change came to: its status and what staging and the test left (the columns of BuiltinToolChange). */
type Outcome = {
  status: BuiltinChangeDto["status"];
  branch: string | null;
  commit: string | null;
  compiledCode: string;
  description: string;
  inputSchema: string;
  testOutput: string;
  error: string | null;
};

/** Stages a change on a branch of the built-in repository, tests it there, and merges it into the agent's branch or abandons it. */
async function stageAndTest(
  agent: AgentRef,
  change: { name: string; source: string; testInput: unknown; reason: string },
): Promise<Outcome> {
  const repoDir = await ensureBuiltinRepo();
  let tested: Tested | null = null;
  const stamp = Date.now().toString(36);
  // Branches are named by the agent's id, not its name: a name changes (PATCH) and is
  // freed when the agent is archived, and a new agent given it must not start from, or
  // add to, another agent's history. Commit messages carry the name for people.
  const staged = await stageChange({
    repoDir,
    target: `agents/${agent.id}`,
    stagingBranch: `staging/${agent.id}/${change.name}-${stamp}`,
    filePath: builtinFilePath(change.name),
    content: change.source,
    message: `${agent.name}: ${change.name}${change.reason ? ` — ${change.reason}` : ""}`,
    test: async (content) => {
      const result = await testBuiltin(change.name, content, change.testInput);
      if (result.ok) tested = result.tested;
      return result;
    },
  });
  const passed = staged.ok ? (tested as Tested | null) : null;
  return {
    status: staged.outcome,
    branch: staged.branch,
    commit: staged.commit,
    compiledCode: passed?.compiledCode ?? "",
    description: passed?.meta.description ?? "",
    inputSchema: JSON.stringify(passed?.meta.inputSchema ?? {}),
    testOutput: JSON.stringify(staged.output ?? null),
    error: staged.error ?? null,
  };
}

/**
 * An agent's change to a built-in. Where its tool changes apply, the change is staged,
 * tested and merged (or abandoned) at once. Where they are proposals (the paranoid
 * profile, `self_extension: propose`), the change is tested in the sandbox first: one
 * that fails is recorded as abandoned with its error, one that passes waits for an
 * operator (proposed) and nothing in the repository moves until it is approved.
 */
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
  await assertOwnTask(agent.id, body.taskId);
  const policy = await toolPolicyFor(agent);
  if (policy.changes === "forbidden") {
    throw new ApiError("profile_forbids", `This agent may not change its tools: ${policy.reason}`);
  }
  let outcome: Outcome;
  if (policy.changes === "apply") {
    outcome = await stageAndTest(agent, body);
  } else {
    const result = await testBuiltin(body.name, body.source, body.testInput);
    outcome = {
      status: result.ok ? "proposed" : "abandoned",
      branch: null,
      commit: null,
      compiledCode: result.ok ? result.tested.compiledCode : "",
      description: result.ok ? result.tested.meta.description : "",
      inputSchema: JSON.stringify(result.ok ? result.tested.meta.inputSchema : {}),
      testOutput: JSON.stringify(result.output ?? null),
      error: result.ok ? null : result.error,
    };
  }
  const row = await db.$transaction(async (tx) => {
    const created = await tx.builtinToolChange.create({
      data: {
        agentId: agent.id,
        toolName: body.name,
        ...outcome,
        source: body.source,
        testInput: JSON.stringify(body.testInput ?? null),
        reason: body.reason,
        taskId: body.taskId ?? null,
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label,
      },
    });
    await appendAudit(tx, {
      actor,
      action: AUDIT_ACTION[outcome.status],
      targetType: "builtin_tool_change",
      targetId: created.id,
      agentId: agent.id,
      data: { name: body.name, outcome: outcome.status, branch: outcome.branch, commit: outcome.commit, error: outcome.error },
    });
    return created;
  });
  return toBuiltinChangeDto(row);
}

const AUDIT_ACTION = {
  merged: "tool.builtin_merged",
  abandoned: "tool.builtin_abandoned",
  refused: "tool.builtin_abandoned",
  proposed: "tool.builtin_proposed",
  rejected: "tool.builtin_rejected",
} as const;

/**
 * An operator's decision on a proposed change to a built-in. Approving stages it as if
 * the agent's changes applied: committed on a branch, tested again, and merged into the
 * agent's branch or abandoned (the row says which, with the error). Rejecting records
 * the note; nothing in the repository moves. A change decided once is not decided again.
 */
export async function reviewBuiltinChange({
  agentId,
  changeId,
  decision,
  note,
  actor,
  reviewerId,
}: {
  agentId: string;
  changeId: string;
  decision: "approve" | "reject";
  note?: string;
  actor: Actor;
  reviewerId: string;
}): Promise<BuiltinChangeDto> {
  // An archived agent is not found, as everywhere in the operator API (its suffixed name is no branch name either).
  const agent = await db.agent.findFirst({
    where: { id: agentId, archivedAt: null },
    select: { id: true, name: true, securityProfile: true },
  });
  if (!agent) throw notFound("Agent");
  const change = await db.builtinToolChange.findFirst({ where: { id: changeId, agentId } });
  if (!change) throw notFound("Built-in tool change");
  // Claim the decision first, so two operators deciding at once cannot both stage it.
  const claimed = await db.builtinToolChange.updateMany({
    where: { id: change.id, status: "proposed" },
    data: {
      status: decision === "approve" ? "approving" : "rejected",
      reviewedById: reviewerId,
      reviewNote: note ?? null,
      reviewedAt: new Date(),
    },
  });
  if (claimed.count === 0)
    throw new ApiError("conflict", `This change was already ${change.status === "proposed" ? "decided" : change.status}`);

  let outcome: Partial<Outcome> = { status: "rejected" };
  if (decision === "approve") {
    try {
      outcome = await stageAndTest(agent as AgentRef, {
        name: change.toolName,
        source: change.source,
        testInput: JSON.parse(change.testInput),
        reason: change.reason,
      });
    } catch (error) {
      // Staging threw (the repository could not be used): the change goes back to waiting.
      await db.builtinToolChange.update({
        where: { id: change.id },
        data: { status: "proposed", reviewedById: null, reviewNote: null, reviewedAt: null },
      });
      throw error;
    }
  }
  const row = await db.$transaction(async (tx) => {
    const updated = await tx.builtinToolChange.update({ where: { id: change.id }, data: outcome });
    await appendAudit(tx, {
      actor,
      action: decision === "approve" ? "tool.builtin_approved" : "tool.builtin_rejected",
      targetType: "builtin_tool_change",
      targetId: change.id,
      agentId,
      data: { name: change.toolName, note: note ?? null, outcome: updated.status, commit: updated.commit, error: updated.error },
    });
    return updated;
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
    // "approving" lasts while an approved proposal is staged; until then it is still a proposal.
    status: (row.status === "approving" ? "proposed" : row.status) as BuiltinChangeDto["status"],
    branch: row.branch,
    commit: row.commit,
    source: row.source,
    testInput: parse(row.testInput),
    testOutput: parse(row.testOutput),
    error: row.error,
    reason: row.reason,
    taskId: row.taskId,
    author: { type: row.actorType, id: row.actorId, label: row.actorLabel },
    review: row.reviewedAt ? { note: row.reviewNote, reviewedAt: row.reviewedAt.toISOString() } : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The agent's built-ins as it changed them: the latest merged change of each. */
export async function listBuiltinOverrides({ agentId }: { agentId: string }): Promise<BuiltinOverride[]> {
  const rows = await db.builtinToolChange.findMany({ where: { agentId, status: "merged" }, orderBy: newestFirst() });
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
  const rows = await db.builtinToolChange.findMany({ where: { agentId }, orderBy: newestFirst(), take: 200 });
  return rows.map(toBuiltinChangeDto);
}
