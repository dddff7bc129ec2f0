// Post-task reflection (reference 001, P5): once the agent's run of a task has
// ended (completed or failed), one more turn in the same workspace asks what it
// learned. Files it writes (memory/, TOOLS.md, the setup script) are synced by
// the usual machinery; what it prints becomes one `reflection` memory, unless it
// says there was nothing new (the P4 "No significant learnings." convention).

import type { EffectiveCapabilities } from "../lib/contracts/capabilities";
import { SETUP_MARKER_END } from "../lib/setup-script/compose";
import type { AgentCommand } from "./agent-runner";
import { claudeDeniedTools } from "./capabilities";
import { claudeCommand } from "./claude-harness";
import type { WorkerConfig } from "./config";

/** Claude's follow-up turn is short: at most this many turns. */
export const REFLECTION_MAX_TURNS = 10;
/** Most of the reflection's output kept in the memory (its end, where the answer is). */
export const MAX_REFLECTION_CHARS = 16_000;
export const NOTHING_NEW = "No significant learnings.";

export type ReflectionOutcome = { status: "completed" | "failed"; detail?: string };

export function reflectionPrompt({
  title,
  outcome,
  startupFile,
  home,
}: {
  title: string;
  outcome: ReflectionOutcome;
  startupFile: string;
  /** SWARMDECK_HOME: where the agent's own files are (not the project checkout). */
  home: string;
}) {
  const at = (name: string) => `${home}/${name}`;
  const how =
    outcome.status === "completed"
      ? "it completed"
      : `it failed${outcome.detail ? `: ${outcome.detail.split("\n")[0]!.slice(0, 300)}` : ""}`;
  return `# Post-task reflection

The task "${title}" is over (${how}). Do not go on with the task and do not change the code. Take a moment to reflect. Your own files are in ${home} ($SWARMDECK_HOME), not in the project:

1. **Did you learn something transferable?** (a pattern, a pitfall, a fact about this code base or environment) If yes, write it as a short markdown file under \`${at("memory/")}\` (your own memory) or \`${at("memory/shared/")}\` (the whole swarm's, only when every agent would benefit). Files there are indexed and found by memory search in later tasks.
2. **Should your TOOLS.md change?** (a new service, API endpoint, command or tool preference) Edit \`${at("TOOLS.md")}\` in place.
3. **Should your IDENTITY.md change?** (new expertise, a working-style observation) Write the whole new file to a temporary file and run \`swarm identity propose identity --file <that file> --reason "<why>"\`; an operator reviews it.
4. **Does your environment need something installed or set up every time?** Add it to your part of the setup script in \`${at(startupFile)}\`, above the line \`${SETUP_MARKER_END}\`.
5. **Did you make a mistake worth remembering?** Write it to \`${at("memory/")}\`: what went wrong, why, and what to do instead.

Only update files if there's a genuine change: don't write for the sake of writing.

Then reply with a short bulleted list of what you learned; it is stored as a memory of this task. If there was nothing worth keeping, reply with exactly: ${NOTHING_NEW}
`;
}

/** How this worker runs the follow-up turn, or why it cannot. */
export async function reflectionCommand({
  config,
  systemPrompt,
  taskDir,
  swarmBin,
  homeDir,
  caps,
}: {
  config: WorkerConfig;
  systemPrompt: string;
  taskDir: string;
  swarmBin: string;
  homeDir: string;
  /** The task's capabilities: the reflection turn is in the same cage. */
  caps: EffectiveCapabilities;
}): Promise<{ command: AgentCommand; how: string } | { skip: string }> {
  if (!config.reflection) return { skip: "REFLECTION=off" };
  if (config.reflectionCommand) return { command: { shell: config.reflectionCommand }, how: "REFLECTION_COMMAND" };
  if (config.harness === "claude") {
    const command = await claudeCommand({
      claudeBin: config.claudeBin,
      systemPrompt,
      maxTurns: Math.min(REFLECTION_MAX_TURNS, caps.maxTurns),
      allowedTools: caps.allowedTools,
      deniedTools: claudeDeniedTools(caps),
      taskDir,
      swarmBin,
      homeDir,
      continueSession: true,
    });
    return { command, how: "claude --continue" };
  }
  return { skip: "AGENT_COMMAND has no follow-up turn (set REFLECTION_COMMAND to run one)" };
}

/** Says there was nothing new: empty, or the P4 convention ("No significant learnings.", "Nothing new."). */
export function isNothingNew(text: string): boolean {
  const plain = text
    .replace(/[*_`>#"]/g, "")
    .trim()
    .toLowerCase();
  if (!plain) return true;
  return (
    plain.length <= 200 &&
    /^(no (significant|new|notable) (learnings?|lessons?)|nothing (new|significant|worth (keeping|noting|recording)))\b/.test(plain)
  );
}

/** The memory text of a reflection's stdout: trimmed and bounded, or null when there is nothing to keep. */
export function reflectionMemoryContent(stdout: string): string | null {
  const text = stdout.trim();
  if (isNothingNew(text)) return null;
  if (text.length <= MAX_REFLECTION_CHARS) return text;
  const cut = text.length - MAX_REFLECTION_CHARS;
  return `[... ${cut} characters cut ...]\n${text.slice(cut)}`;
}

export function reflectionMemoryName(title: string): string {
  const name = `Reflection: ${title.trim() || "untitled task"}`;
  return name.length <= 200 ? name : `${name.slice(0, 199)}…`;
}
