// HARNESS=claude: the Claude Code CLI in print mode with the system prompt
// appended, the agent's capabilities (allowed and denied tools, max turns: worker/
// capabilities.ts) as flags and as permission rules in its settings, and hooks (PostToolUse on file edits,
// Stop) that call `swarm sync`, i.e. back into this worker's sync. It runs in the
// project checkout (so it reads the project's own CLAUDE.md) with the agent's home
// added (`--add-dir`), whose CLAUDE.md it also loads
// (CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1, set in agent-env.ts) and whose files it may edit.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { AgentCommand } from "./agent-runner";
import { handOverFile } from "./agent-user";

/** Linux caps one argument at 128 KiB; a larger system prompt is cut with a visible marker. */
const MAX_ARG_CHARS = 120 * 1024;

export function claudeSettings(swarmBin: string, tools: { allowed: string[]; denied: string[] } = { allowed: [], denied: [] }) {
  const sync = { type: "command", command: `"${swarmBin}" sync`, timeout: 60 };
  return {
    permissions: { allow: tools.allowed, deny: tools.denied },
    hooks: {
      PostToolUse: [{ matcher: "Write|Edit|MultiEdit|NotebookEdit", hooks: [sync] }],
      Stop: [{ hooks: [sync] }],
    },
  };
}

/** The name Claude Code knows Swarmdeck's MCP server by: its tools are `mcp__swarm__<tool>`. */
export const MCP_SERVER_NAME = "swarm";

/**
 * Claude Code's --mcp-config format: `swarm mcp` on stdio. MCP clients start stdio
 * servers with a minimal environment, so the control server's address and the
 * per-task secret are passed explicitly (never the worker token).
 */
export function claudeMcpConfig(swarmBin: string, control: { url: string; secret: string; taskId: string }) {
  return {
    mcpServers: {
      [MCP_SERVER_NAME]: {
        type: "stdio",
        command: swarmBin,
        args: ["mcp"],
        env: { SWARMDECK_CONTROL_URL: control.url, SWARMDECK_CONTROL_SECRET: control.secret, SWARMDECK_TASK_ID: control.taskId },
      },
    },
  };
}

export async function claudeCommand({
  claudeBin,
  systemPrompt,
  maxTurns,
  allowedTools,
  deniedTools,
  taskDir,
  swarmBin,
  homeDir,
  mcp,
  continueSession = false,
}: {
  claudeBin: string;
  systemPrompt: string;
  maxTurns: number;
  allowedTools: string[];
  /** Passed as --disallowedTools: deny rules win over any allow rule, wherever it comes from. */
  deniedTools: string[];
  taskDir: string;
  swarmBin: string;
  /** SWARMDECK_HOME, added with --add-dir. */
  homeDir: string;
  /** Serve Swarmdeck's tools over MCP (`swarm mcp`) through this control server. */
  mcp?: { url: string; secret: string; taskId: string };
  /** One more turn of the workspace's latest conversation (`--continue`), e.g. the post-task reflection. */
  continueSession?: boolean;
}): Promise<AgentCommand> {
  const settingsFile = path.join(taskDir, "claude-settings.json");
  await writeFile(settingsFile, JSON.stringify(claudeSettings(swarmBin, { allowed: allowedTools, denied: deniedTools }), null, 2));
  const prompt =
    systemPrompt.length > MAX_ARG_CHARS
      ? `${systemPrompt.slice(0, MAX_ARG_CHARS)}\n\n[system prompt truncated by the worker]`
      : systemPrompt;
  const args = [
    "-p",
    ...(continueSession ? ["--continue"] : []),
    "--output-format",
    "text",
    "--max-turns",
    String(maxTurns),
    "--settings",
    settingsFile,
    "--add-dir",
    homeDir,
  ];
  let allowed = [...allowedTools];
  if (mcp) {
    const mcpFile = path.join(taskDir, "claude-mcp.json");
    await writeFile(mcpFile, JSON.stringify(claudeMcpConfig(swarmBin, mcp), null, 2), { mode: 0o600 });
    // It holds the task's control secret: readable by the agent's user only (worker/agent-user.ts).
    await handOverFile(mcpFile);
    args.push("--mcp-config", mcpFile);
    // Print mode asks no questions: a tool that is not allowed is refused, so allow the server's tools
    // (they act through the control server, under the app's own rules; a deny rule still wins).
    allowed = [...allowed, `mcp__${MCP_SERVER_NAME}`];
  }
  // An empty allow list still goes out, so Claude Code gets no tool by default.
  args.push("--allowedTools", allowed.join(","));
  if (deniedTools.length > 0) args.push("--disallowedTools", deniedTools.join(","));
  if (prompt.trim()) args.push("--append-system-prompt", prompt);
  return { file: claudeBin, args };
}
