// The agent's own tools, on the worker's side (reference 003): `tool_write`
// compiles the agent's TypeScript, tests it in the sandbox against the agent's test
// input and only then sends it to the app, which stores it as a new version; a tool
// that fails to compile or fails its test is answered with the error and the output
// and goes nowhere. `tool_run` runs the registered version in the same sandbox.
// The `swarm tool ...` commands and `swarm mcp` both arrive here through the
// control server (worker/tool-routes.ts): one code path.
import { z } from "zod";
import {
  type ActiveTool,
  isBuiltinToolName,
  MAX_TOOL_OUTPUT_CHARS,
  suggestToolName,
  TOOL_DEFAULT_TIMEOUT_MS,
  TOOL_MAX_TIMEOUT_MS,
  toolNameSchema,
} from "../lib/contracts/tools";
import { compileTool } from "../lib/tools/sandbox/compile";
import { runInSandbox, type SandboxResult } from "../lib/tools/sandbox/sandbox";
import { agentSpawnIdentity } from "./agent-user";
import { type ApiClient, WorkerApiError } from "./api-client";

export const writeToolInputSchema = z.strictObject({
  name: toolNameSchema,
  source: z
    .string()
    .min(1, "the source is empty")
    .max(64 * 1024, "at most 64 KiB of source"),
  description: z.string().trim().max(2000).optional(),
  testInput: z.unknown().optional(),
  reason: z.string().trim().max(2000).optional(),
  builtin: z.boolean().default(false),
});
export const runToolInputSchema = z.strictObject({ name: toolNameSchema, input: z.unknown().optional() });
export const deleteToolInputSchema = z.strictObject({ name: toolNameSchema, reason: z.string().trim().max(2000).optional() });

type Context = { api: ApiClient; taskId?: string };

/** A refusal the agent can act on: the app's error shape, with the sandbox's answer in details. */
function refused(status: number, code: string, message: string, details?: unknown): never {
  throw new WorkerApiError(status, code, message, details);
}

function timeoutOf(ms: number | null | undefined): number {
  return Math.min(Math.max(ms ?? TOOL_DEFAULT_TIMEOUT_MS, 100), TOOL_MAX_TIMEOUT_MS);
}

function failureDetails(result: SandboxResult) {
  if (result.ok) return undefined;
  return { reason: result.reason, error: result.error, logs: result.logs, durationMs: result.durationMs };
}

export async function writeAgentTool(ctx: Context, input: z.infer<typeof writeToolInputSchema>) {
  if (input.builtin) return changeBuiltin(ctx, input);
  const listing = await ctx.api.listTools();
  if (listing.policy.changes === "forbidden") refused(403, "profile_forbids", `Tool changes are not allowed: ${listing.policy.reason}`);
  if (isBuiltinToolName(input.name)) {
    const suggestion = suggestToolName(
      input.name,
      listing.tools.map((t) => t.name),
    );
    refused(409, "conflict", `"${input.name}" is a built-in tool. Choose another name, e.g. "${suggestion}"`, { suggestion });
  }
  const compiled = await compileTool(input.source);
  if (!compiled.ok) refused(422, "compile_failed", `The tool did not compile:\n${compiled.errors}`, { errors: compiled.errors });
  const testInput = input.testInput ?? {};
  const test = await runInSandbox({
    compiledCode: compiled.code,
    input: testInput,
    limits: { timeoutMs: TOOL_MAX_TIMEOUT_MS, network: listing.policy.network },
    runAs: agentSpawnIdentity(),
  });
  if (!test.ok) {
    refused(422, "test_failed", `The tool failed its test (${test.reason}): ${test.error}. It was not stored.`, failureDetails(test));
  }
  if (test.meta.inputSchema.type !== "object") {
    refused(422, "test_failed", "inputSchema must be a z.object({...}): tools take named arguments");
  }
  if (test.meta.name !== input.name) {
    refused(422, "test_failed", `The module's name is "${test.meta.name}" but you wrote it as "${input.name}"; they must match`);
  }
  const result = await ctx.api.writeTool({
    name: input.name,
    description: input.description || test.meta.description,
    source: input.source,
    compiledCode: compiled.code,
    inputSchema: test.meta.inputSchema,
    timeoutMs: test.meta.timeoutMs === null ? null : timeoutOf(test.meta.timeoutMs),
    testInput,
    testOutput: test.output,
    testDurationMs: test.durationMs,
    reason: input.reason ?? "",
    ...(ctx.taskId ? { taskId: ctx.taskId } : {}),
  });
  return {
    status: result.status,
    name: result.name,
    version: result.version,
    versionId: result.versionId,
    testOutput: test.output,
    logs: test.logs,
    warnings: compiled.warnings || undefined,
    message:
      result.status === "applied"
        ? `${input.name} v${result.version} is registered; call it now`
        : `${input.name} v${result.version} waits for an operator's approval (${listing.policy.reason})`,
  };
}

/**
 * `--builtin`: the app stages the change on a branch of its built-in repository, tests it and merges it for this agent;
 * where the agent's tool changes are proposals, it tests the change and queues it for an operator.
 */
async function changeBuiltin(ctx: Context, input: z.infer<typeof writeToolInputSchema>) {
  if (!isBuiltinToolName(input.name)) refused(400, "bad_request", `"${input.name}" is not a built-in tool; leave out --builtin`);
  const change = await ctx.api.writeBuiltin({
    name: input.name,
    source: input.source,
    testInput: input.testInput ?? {},
    reason: input.reason ?? "",
    ...(ctx.taskId ? { taskId: ctx.taskId } : {}),
  });
  if (change.status === "proposed") {
    return {
      status: "pending" as const,
      name: input.name,
      branch: null,
      commit: null,
      testOutput: change.testOutput,
      message: `Your change to ${input.name} passed its test and waits for an operator's approval; until then ${input.name} is unchanged`,
    };
  }
  if (change.status !== "merged") {
    const logs = typeof change.testOutput === "string" ? change.testOutput : JSON.stringify(change.testOutput);
    refused(422, "test_failed", `The change to ${input.name} was ${change.status}: ${change.error}. Your ${input.name} is unchanged.`, {
      branch: change.branch,
      commit: change.commit,
      logs,
    });
  }
  return {
    status: "applied" as const,
    name: input.name,
    branch: change.branch,
    commit: change.commit,
    testOutput: change.testOutput,
    message: `${input.name} is changed for you (commit ${change.commit?.slice(0, 10)} merged from ${change.branch})`,
  };
}

/** What execute() of the agent's version of a built-in makes of the input: the built-in's arguments. */
export async function builtinArguments(ctx: Context, { name, input }: z.infer<typeof runToolInputSchema>) {
  const { builtins, policy } = await ctx.api.listTools();
  const override = builtins.find((b) => b.name === name);
  if (!override) refused(404, "not_found", `You have not changed the built-in ${name}`);
  const result = await runInSandbox({
    compiledCode: override.compiledCode,
    input: input ?? {},
    limits: { timeoutMs: TOOL_DEFAULT_TIMEOUT_MS, network: policy.network },
    runAs: agentSpawnIdentity(),
  });
  if (!result.ok) refused(422, "tool_failed", `your ${name} failed (${result.reason}): ${result.error}`, failureDetails(result));
  return { args: result.output };
}

export async function listAgentTools(ctx: Context) {
  const { tools, policy, lead, builtins } = await ctx.api.listTools();
  return {
    lead,
    builtins: builtins.map(({ name, description, inputSchema, commit }) => ({ name, description, inputSchema, commit })),
    tools: tools.map(({ name, description, version, inputSchema, timeoutMs }) => ({ name, description, version, inputSchema, timeoutMs })),
    policy,
    /** Changes whenever a tool is registered, replaced or removed: `swarm mcp` compares it to notify its client. */
    revision: [...tools.map((t) => t.versionId), ...builtins.map((b) => b.commit)].join(","),
  };
}

export async function runAgentTool(ctx: Context, { name, input }: z.infer<typeof runToolInputSchema>) {
  const { tools, policy } = await ctx.api.listTools();
  const tool: ActiveTool | undefined = tools.find((t) => t.name === name);
  if (!tool) refused(404, "not_found", `No tool named "${name}" is registered for you (swarm tool list shows yours)`);
  const result = await runInSandbox({
    compiledCode: tool.compiledCode,
    input: input ?? {},
    limits: { timeoutMs: timeoutOf(tool.timeoutMs), network: policy.network },
    runAs: agentSpawnIdentity(),
  });
  await ctx.api
    .reportToolCall(name, {
      ok: result.ok,
      durationMs: result.durationMs,
      ...(result.ok ? {} : { error: `${result.reason}: ${result.error}` }),
    })
    .catch(() => undefined); // counts are for operators; a lost one never fails the call
  if (!result.ok) refused(422, "tool_failed", `${name} failed (${result.reason}): ${result.error}`, failureDetails(result));
  const text = JSON.stringify(result.output);
  const output = text.length > MAX_TOOL_OUTPUT_CHARS ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}… [cut]` : result.output;
  return { name, version: tool.version, output, logs: result.logs, durationMs: result.durationMs };
}

export async function deleteAgentTool(ctx: Context, { name, reason }: z.infer<typeof deleteToolInputSchema>) {
  const result = await ctx.api.deleteTool(name, { reason, taskId: ctx.taskId });
  return {
    ...result,
    message: result.status === "applied" ? `${name} is deleted (its history stays)` : `deleting ${name} waits for an operator's approval`,
  };
}
