// Builds the agent's workspace for one task: identity files at the root under
// their own names, the composed setup script in the start-up file, the prompts
// in files outside the workspace. File names come from the contract's table,
// never from the request, so nothing the app sends can point outside the workspace.
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { IDENTITY_FILE_NAMES, IDENTITY_KINDS, type IdentityKind, identityKindSchema } from "../lib/contracts/identity";
import type { Bundle } from "../lib/contracts/tasks";
import { composeSetupScript, extractAgentSetupScript, prependSetupBlock } from "../lib/setup-script/compose";
import { pickStartupFile, type StartupFileName } from "../lib/setup-script/startup-file";

/** Identity kinds that are plain files (the setup script goes into the start-up file instead). */
export const FILE_KINDS = IDENTITY_KINDS.filter((kind) => kind !== "SETUP_SCRIPT");

export type PreparedWorkspace = {
  /** What was written, per kind, with the version it came from: the base of every sync. */
  files: Map<IdentityKind, { content: string; versionId: string | null }>;
  startupFile: StartupFileName;
  /** `synced`: the agent's part as read back from the written file, so that only real edits count as changes. */
  setupScript: { global: string; agent: string; versionId: string | null; synced: string };
  promptFile: string;
  systemPromptFile: string;
};

export async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EISDIR") return null;
    throw error;
  }
}

export async function prepareWorkspace({
  workspaceDir,
  taskDir,
  bundle,
}: {
  workspaceDir: string;
  taskDir: string;
  bundle: Bundle;
}): Promise<PreparedWorkspace> {
  await mkdir(workspaceDir, { recursive: true });
  await mkdir(taskDir, { recursive: true });
  const files = new Map<IdentityKind, { content: string; versionId: string | null }>();
  let setupVersionId: string | null = null;
  for (const file of bundle.files) {
    const kind = identityKindSchema.safeParse(file.kind);
    if (!kind.success) continue;
    if (kind.data === "SETUP_SCRIPT") {
      setupVersionId = file.versionId;
      continue;
    }
    files.set(kind.data, { content: file.content, versionId: file.versionId });
  }
  for (const kind of FILE_KINDS) {
    const target = path.join(workspaceDir, IDENTITY_FILE_NAMES[kind]);
    const file = files.get(kind);
    // A kind the app no longer has (BOOTSTRAP once retired) must not linger from an earlier task.
    if (file) await writeFile(target, file.content);
    else await rm(target, { force: true });
  }

  const startup = pickStartupFile(await readdir(workspaceDir));
  const startupPath = path.join(workspaceDir, startup.name);
  const scripts = { global: bundle.setupScript.global, agent: bundle.setupScript.agent };
  const existing = startup.exists ? await readIfExists(startupPath) : null;
  const written = existing === null ? composeSetupScript(scripts) : prependSetupBlock(existing, scripts);
  await writeFile(startupPath, written);
  await chmod(startupPath, 0o755);

  const promptFile = path.join(taskDir, "task-prompt.md");
  const systemPromptFile = path.join(taskDir, "system-prompt.md");
  await writeFile(promptFile, bundle.taskPrompt);
  await writeFile(systemPromptFile, bundle.systemPrompt);
  return {
    files,
    startupFile: startup.name,
    setupScript: { ...scripts, versionId: setupVersionId, synced: extractAgentSetupScript(written, scripts.global) },
    promptFile,
    systemPromptFile,
  };
}

/** Names the worker owns in a git workspace: never committed to the project's repository. */
export function workspaceOwnedPaths(startupFile: string): string[] {
  return [...FILE_KINDS.map((kind) => IDENTITY_FILE_NAMES[kind]), startupFile, "memory/"];
}
