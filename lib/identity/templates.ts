// The default identity files (lib/identity/templates/*), read at run time so an
// operator can change them without a rebuild. The server runs from the repo
// root; SWARMDECK_IDENTITY_TEMPLATES points elsewhere if needed.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { IdentityKind } from "@/lib/contracts/identity";

const TEMPLATE_FILES: Record<IdentityKind, string> = {
  AGENT: "AGENT.md",
  SOUL: "SOUL.md",
  IDENTITY: "IDENTITY.md",
  USER: "USER.md",
  TOOLS: "TOOLS.md",
  CLAUDE: "CLAUDE.md",
  HEARTBEAT: "HEARTBEAT.md",
  BOOTSTRAP: "BOOTSTRAP.md",
  SETUP_SCRIPT: "SETUP_SCRIPT.sh",
  CAPABILITIES: "CAPABILITIES.yaml",
};

export type TemplateAgent = { name: string; displayName?: string; role?: string; description?: string; maxConcurrentTasks?: number };

export function templatesDir(): string {
  return process.env.SWARMDECK_IDENTITY_TEMPLATES || path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "identity", "templates");
}

/** Replaces `{{key}}` placeholders; unknown keys stay visible rather than vanish. */
export function fillTemplate(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (match, key: string) => values[key] ?? match);
}

export function renderTemplate(kind: IdentityKind, agent: TemplateAgent): string {
  const raw = readFileSync(path.join(/*turbopackIgnore: true*/ templatesDir(), TEMPLATE_FILES[kind]), "utf8");
  return fillTemplate(raw, {
    name: agent.name,
    displayName: agent.displayName || agent.name,
    role: agent.role ?? "worker",
    description: agent.description || "general software engineering",
    maxConcurrentTasks: String(agent.maxConcurrentTasks ?? 1),
  });
}
