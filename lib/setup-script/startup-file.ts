// Which start-up file a workspace uses and how to run it (reference 000): the
// first of start-up.{sh,bash,js,ts,bun} or start-up that exists, run by its
// shebang, else by its extension. Pure: the worker passes in what it found on disk.

/** In the order the worker looks for them; start-up.sh is created when none exists. */
export const STARTUP_FILE_NAMES = ["start-up.sh", "start-up.bash", "start-up.js", "start-up.ts", "start-up.bun", "start-up"] as const;
export type StartupFileName = (typeof STARTUP_FILE_NAMES)[number];
export const DEFAULT_STARTUP_FILE: StartupFileName = "start-up.sh";

export function isStartupFileName(name: string): name is StartupFileName {
  return (STARTUP_FILE_NAMES as readonly string[]).includes(name);
}

/** The first existing start-up file, else the default one to create. */
export function pickStartupFile(existing: Iterable<string>): { name: StartupFileName; exists: boolean } {
  const present = new Set(existing);
  const found = STARTUP_FILE_NAMES.find((name) => present.has(name));
  return found ? { name: found, exists: true } : { name: DEFAULT_STARTUP_FILE, exists: false };
}

/**
 * The command that runs a start-up file: its shebang line when it has one
 * (`#!/usr/bin/env node` → ["/usr/bin/env", "node", file]), else by extension.
 */
export function interpreterFor(name: string, content: string): string[] {
  const shebang = /^#!([^\n]*)/.exec(content)?.[1]?.trim();
  if (shebang) return [...shebang.split(/\s+/), name];
  if (name.endsWith(".js")) return ["node", name];
  if (name.endsWith(".ts")) return ["npx", "--yes", "tsx", name];
  if (name.endsWith(".bun")) return ["bun", name];
  return ["bash", name];
}
