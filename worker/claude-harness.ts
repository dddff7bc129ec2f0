// HARNESS=claude: the Claude Code CLI in print mode with the system prompt
// appended, MAX_TURNS and ALLOWED_TOOLS, and hooks (PostToolUse on file edits,
// Stop) that call `swarm sync`, i.e. back into this worker's sync.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { AgentCommand } from "./agent-runner";

/** Linux caps one argument at 128 KiB; a larger system prompt is cut with a visible marker. */
const MAX_ARG_CHARS = 120 * 1024;

export function claudeSettings(swarmBin: string) {
  const sync = { type: "command", command: `"${swarmBin}" sync`, timeout: 60 };
  return {
    hooks: {
      PostToolUse: [{ matcher: "Write|Edit|MultiEdit|NotebookEdit", hooks: [sync] }],
      Stop: [{ hooks: [sync] }],
    },
  };
}

export async function claudeCommand({
  claudeBin,
  systemPrompt,
  maxTurns,
  allowedTools,
  taskDir,
  swarmBin,
  continueSession = false,
}: {
  claudeBin: string;
  systemPrompt: string;
  maxTurns: number;
  allowedTools: string;
  taskDir: string;
  swarmBin: string;
  /** One more turn of the workspace's latest conversation (`--continue`), e.g. the post-task reflection. */
  continueSession?: boolean;
}): Promise<AgentCommand> {
  const settingsFile = path.join(taskDir, "claude-settings.json");
  await writeFile(settingsFile, JSON.stringify(claudeSettings(swarmBin), null, 2));
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
  ];
  if (allowedTools.trim()) args.push("--allowedTools", allowedTools);
  if (prompt.trim()) args.push("--append-system-prompt", prompt);
  return { file: claudeBin, args };
}
