// The cage as the worker enforces it: capabilities.yaml from the task bundle (the
// operator's), narrowed by this worker's environment (ALLOWED_TOOLS, DENIED_TOOLS,
// MAX_TURNS, MAX_OUTPUT_CHARS: each may only narrow it). An invalid file stops the
// task with a clear reason instead of running the agent without its cage.
import {
  CLAUDE_CODE_TOOLS,
  DEFAULT_CAPABILITIES,
  describeCapabilitiesIssues,
  type EffectiveCapabilities,
  narrowCapabilities,
  readCapabilities,
  ruleTool,
} from "../lib/contracts/capabilities";
import type { Bundle } from "../lib/contracts/tasks";
import type { WorkerConfig } from "./config";

export class CapabilitiesError extends Error {}

/**
 * The cage for one task. A capabilities.yaml in the shape agents had before the schema
 * is read as its upgrade (lib/contracts/capabilities.ts, upgradeCapabilities); `upgraded`
 * then lists what changed, for the worker's log.
 */
export function taskCapabilities(bundle: Pick<Bundle, "files">, config: WorkerConfig): EffectiveCapabilities & { upgraded?: string[] } {
  const file = bundle.files.find((entry) => entry.kind === "CAPABILITIES");
  let caps = DEFAULT_CAPABILITIES;
  let upgraded: string[] | undefined;
  if (file) {
    const read = readCapabilities(file.content);
    if (!read.ok) {
      throw new CapabilitiesError(
        `capabilities.yaml is invalid, so the agent was not started (fix it on the agent's Identity tab):\n${describeCapabilitiesIssues(read.issues)}`,
      );
    }
    caps = read.value;
    if (read.upgrade) upgraded = read.upgrade.notes;
  }
  return { ...narrowCapabilities(caps, config.capabilityNarrowing), ...(upgraded ? { upgraded } : {}) };
}

/**
 * What Claude Code is told to deny: the denied rules, plus every built-in tool the
 * allow list does not mention at all. Deny rules win over allow rules from any
 * settings file, so a `.claude/settings*.json` the agent writes cannot widen them.
 */
export function claudeDeniedTools(caps: EffectiveCapabilities): string[] {
  const mentioned = new Set(caps.allowedTools.map(ruleTool));
  return [...new Set([...caps.deniedTools, ...CLAUDE_CODE_TOOLS.filter((tool) => !mentioned.has(tool))])];
}
