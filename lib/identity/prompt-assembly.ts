// Pure system-prompt assembly (docs/architecture.md "Identity rules"): AGENT, SOUL, IDENTITY,
// USER, capabilities, then the base sections. Each injected file is cut at a cap
// with a visible marker. TOOLS.md is never injected. Bootstrap mode: AGENT.md, then
// BOOTSTRAP.md, then whatever of SOUL/IDENTITY/USER the ritual wrote so far.
import { BASE_SECTIONS } from "./base-prompt";

/** Default per-file cap: about 8,000 tokens at ~4 characters a token. */
export const DEFAULT_PROMPT_FILE_CAP_CHARS = 32_000;

export function promptFileCapChars(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.SWARMDECK_PROMPT_FILE_CAP_CHARS);
  return Number.isInteger(value) && value >= 200 ? value : DEFAULT_PROMPT_FILE_CAP_CHARS;
}

export function truncationMarker(fileName: string, cut: number, total: number): string {
  return `[… ${fileName} truncated: ${cut.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} characters shown (per-file cap). Read $SWARMDECK_HOME/${fileName} for the rest …]`;
}

/** Cuts `content` at `cap` characters (at a line break when one is near) and says so visibly. */
export function capFile(fileName: string, content: string, cap: number): { text: string; truncated: boolean } {
  if (content.length <= cap) return { text: content, truncated: false };
  let cut = cap;
  const lineBreak = content.lastIndexOf("\n", cap);
  if (lineBreak > cap * 0.8) cut = lineBreak;
  // Never split a surrogate pair.
  const code = content.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return { text: `${content.slice(0, cut).trimEnd()}\n\n${truncationMarker(fileName, cut, content.length)}`, truncated: true };
}

export type PromptSources = {
  AGENT: string | null;
  SOUL: string | null;
  IDENTITY: string | null;
  USER: string | null;
  CAPABILITIES: string | null;
  BOOTSTRAP: string | null;
};

export type AssemblyResult = { systemPrompt: string; bootstrap: boolean; truncated: string[] };

export function assemblePrompt({ files, cap }: { files: PromptSources; cap: number }): AssemblyResult {
  const truncated: string[] = [];
  const capped = (name: string, content: string) => {
    const result = capFile(name, content, cap);
    if (result.truncated) truncated.push(name);
    return result.text;
  };
  // Bootstrap mode (reference 002) until SOUL and IDENTITY both exist. AGENT.md's rules
  // stay in force during the ritual: they come first, then the ritual itself.
  const bootstrap = files.SOUL === null || (files.BOOTSTRAP !== null && files.IDENTITY === null);
  const parts: string[] = [];
  if (files.AGENT?.trim()) parts.push(capped("AGENT.md", files.AGENT.trim()));
  if (bootstrap) {
    parts.push(`# Bootstrap (BOOTSTRAP.md): your first task\n\n${capped("BOOTSTRAP.md", (files.BOOTSTRAP ?? "").trim())}`);
    parts.push(
      "This task is your bootstrap ritual: it ends when SOUL.md and IDENTITY.md both exist. Your writes of SOUL.md, IDENTITY.md and USER.md during it are applied directly (an operator chose to let you bootstrap yourself).",
    );
  }
  if (files.SOUL?.trim()) parts.push(capped("SOUL.md", files.SOUL.trim()));
  if (!bootstrap) {
    parts.push(
      files.IDENTITY?.trim()
        ? capped("IDENTITY.md", files.IDENTITY.trim())
        : '# IDENTITY\n\nNo IDENTITY.md yet: present yourself as "Assistant", no emoji.',
    );
  } else if (files.IDENTITY?.trim()) parts.push(capped("IDENTITY.md", files.IDENTITY.trim()));
  if (files.USER?.trim()) parts.push(capped("USER.md", files.USER.trim()));
  if (files.CAPABILITIES?.trim()) {
    parts.push(
      `# Capabilities (capabilities.yaml, set by operators)\n\n\`\`\`yaml\n${capped("capabilities.yaml", files.CAPABILITIES.trim())}\n\`\`\``,
    );
  }
  parts.push(...BASE_SECTIONS);
  return { systemPrompt: parts.join("\n\n---\n\n"), bootstrap, truncated };
}
