// Builds the agent's home (SWARMDECK_HOME, beside the project's checkout, never in
// it) for one task: identity files under their own names, the composed setup
// script in the start-up file, the prompts in the task's temporary folder. File
// names come from the contract's table, never from the request, so nothing the
// app sends can point outside the home folder.

import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readdir, readlink, realpath, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { IDENTITY_FILE_NAMES, IDENTITY_KINDS, type IdentityKind, identityKindSchema } from "../lib/contracts/identity";
import type { Bundle } from "../lib/contracts/tasks";
import { composeSetupScript, extractAgentSetupScript, prependSetupBlock } from "../lib/setup-script/compose";
import { pickStartupFile, STARTUP_FILE_NAMES, type StartupFileName } from "../lib/setup-script/startup-file";
import { currentAgentUser } from "./agent-user";
import type { Logger } from "./log";

/** Identity kinds that are plain files (the setup script goes into the start-up file instead). */
/** The folder in the home whose files become the agent's memories (memory/shared/: the swarm's), worker/sync.ts. */
export const MEMORY_DIR = "memory";

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

/** `file` opened for reading, never through a symlink at its own name; null when it is gone, a folder or a symlink. */
async function openNoFollow(file: string): Promise<FileHandle | null> {
  try {
    return await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR" || code === "ELOOP" || code === "ENOTDIR") return null;
    throw error;
  }
}

/**
 * Reads a file of the agent's home. The agent owns that folder, so a name may be a
 * symlink (to /proc/<worker>/environ, say): the worker never follows one, and reads
 * regular files only.
 */
export async function readIfExists(file: string, options: TextReadOptions = {}): Promise<string | null> {
  const handle = await openNoFollow(file);
  if (!handle) return null;
  try {
    if (!(await handle.stat()).isFile()) return null;
    return decodeText(await handle.readFile(), file, options);
  } finally {
    await handle.close();
  }
}

/** `utf8Only`: bytes that are not UTF-8 throw NotUtf8Error instead of becoming U+FFFD (what the agent sends is its text, as written). */
export type TextReadOptions = { utf8Only?: boolean };

export class NotUtf8Error extends Error {
  constructor(file: string) {
    super(`${path.basename(file)} is not UTF-8 text: not sent (save it as UTF-8)`);
  }
}

function decodeText(bytes: Buffer, file: string, { utf8Only = false }: TextReadOptions): string {
  if (utf8Only && !isUtf8(bytes)) throw new NotUtf8Error(file);
  return bytes.toString("utf8");
}

/**
 * A file under the agent's home, read only if what was opened lies inside it, and
 * only up to `maxBytes` (null otherwise, or when it is gone or not a plain file).
 * The agent owns the home and runs beside a worker that may be root: checking the
 * path and then opening it would let the agent swap a folder on the way for a
 * symlink (to /proc/<worker>/, say) in between, and the worker would read its own
 * environment as a memory. So the file is opened first (never through a symlink
 * at its own name), and the open file's real location (/proc/self/fd on Linux;
 * elsewhere the path's real location) must be inside the home's.
 */
export async function readHomeFile(homeDir: string, file: string, maxBytes: number, options: TextReadOptions = {}): Promise<string | null> {
  const home = `${await realpath(homeDir)}${path.sep}`;
  const handle = await openNoFollow(file);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => realpath(file).catch(() => null));
    if (opened === null || !opened.startsWith(home)) return null;
    // Read at most one byte past the limit: a file that grew since the stat is refused, not read whole.
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > maxBytes ? null : decodeText(buffer.subarray(0, bytesRead), file, options);
  } finally {
    await handle.close();
  }
}

export class HomeWriteError extends Error {}

/**
 * Writes a file of the agent's home without following anything the agent put there.
 * The agent owns the home, so the name may be a symlink (to /etc/passwd, or a file of
 * the worker's) and, with a root worker, following it would write as root outside the
 * home. So the content goes into a new temporary file beside it (O_CREAT|O_EXCL|
 * O_NOFOLLOW: a name nobody could have planted), gets its mode and owner through the
 * open handle, and is renamed over the name, which replaces a symlink instead of
 * following it. A home folder that is itself a symlink, or not a folder, is refused.
 */
export async function writeOwnFile(file: string, content: string, mode = 0o644): Promise<void> {
  const dir = path.dirname(file);
  const folder = await lstat(dir).catch(() => null);
  if (!folder?.isDirectory()) {
    throw new HomeWriteError(`refusing to write ${path.basename(file)}: ${dir} is ${folder ? "a symlink or not a folder" : "missing"}`);
  }
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(8).toString("hex")}.swarmdeck-tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
    const owner = currentAgentUser();
    if (owner) await handle.chown(owner.uid, owner.gid);
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new HomeWriteError(`could not write ${file}: ${(error as Error).message}`);
  }
}

export async function prepareWorkspace({
  homeDir,
  taskDir,
  bundle,
}: {
  homeDir: string;
  taskDir: string;
  bundle: Bundle;
}): Promise<PreparedWorkspace> {
  await mkdir(homeDir, { recursive: true });
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
    const target = path.join(homeDir, IDENTITY_FILE_NAMES[kind]);
    const file = files.get(kind);
    // A kind the app no longer has (BOOTSTRAP once retired) must not linger from an earlier task.
    if (file) await writeOwnFile(target, file.content);
    else await rm(target, { force: true });
  }

  await ensureMemoryFolders(homeDir);

  const scripts = { global: bundle.setupScript.global, agent: bundle.setupScript.agent };
  const startup = await writeStartupFile(homeDir, scripts);
  const written = startup.content;

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

/**
 * memory/ and memory/shared/ in the home, made where missing, so a note written
 * straight into them (no mkdir) becomes a memory (worker/sync.ts). Never through
 * a symlink the agent left at either name (a root worker would make folders
 * wherever it points): one folder at a time, each checked to be a real folder
 * before the next is made in it. Something else at the name is left as it is;
 * sync reads none of it.
 */
async function ensureMemoryFolders(homeDir: string): Promise<void> {
  let parent = homeDir;
  for (const name of [MEMORY_DIR, "shared"]) {
    if (!(await lstat(parent)).isDirectory()) return;
    const folder = path.join(parent, name);
    try {
      await mkdir(folder); // not recursive: a symlink at the name answers EEXIST, it is not followed
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    parent = folder;
  }
}

/**
 * The composed block at the top of the home's start-up file: the first existing
 * start-up.{sh,bash,js,ts,bun} / start-up (its own content kept below the block),
 * else a new start-up.sh. One block however often it runs.
 */
export async function writeStartupFile(
  homeDir: string,
  scripts: { global: string; agent: string },
): Promise<{ name: StartupFileName; content: string }> {
  await mkdir(homeDir, { recursive: true });
  const startup = pickStartupFile(await readdir(homeDir));
  const startupPath = path.join(homeDir, startup.name);
  const existing = startup.exists ? await readIfExists(startupPath) : null;
  const content = existing === null ? composeSetupScript(scripts) : prependSetupBlock(existing, scripts);
  await writeOwnFile(startupPath, content, 0o755);
  return { name: startup.name, content };
}

/** The home's start-up files as the worker left them (null: nothing readable at the name). */
export type StartupSnapshot = {
  files: Map<StartupFileName, string | null>;
  /** The task's start-up file, whose block the agent may change (its sync decides on that): the block is not put back. */
  block?: { name: StartupFileName; global: string };
};

export async function snapshotStartupFiles(homeDir: string, block?: StartupSnapshot["block"]): Promise<StartupSnapshot> {
  const files: StartupSnapshot["files"] = new Map();
  for (const name of STARTUP_FILE_NAMES) files.set(name, await readIfExists(path.join(homeDir, name)));
  return { files, ...(block ? { block } : {}) };
}

/**
 * Puts the home's start-up files back as the snapshot has them, outside the task's
 * setup block; answers the names it changed. Only the block between the markers is
 * the agent's setup script, synced through its profile (lib/identity/rules.ts); the
 * rest of the file is the operator's, and the worker runs all of it
 * (worker/setup-guard.ts). Kept, an agent's line after the end marker, or a start-up
 * file of its own earlier in the lookup order, would run at every later setup run,
 * on any profile, unseen by operators. Never through a symlink: writeOwnFile
 * replaces one, rm removes the link itself.
 */
export async function restoreStartupFiles(homeDir: string, snapshot: StartupSnapshot): Promise<StartupFileName[]> {
  const changed: StartupFileName[] = [];
  for (const [name, before] of snapshot.files) {
    const file = path.join(homeDir, name);
    const now = await readIfExists(file);
    if (before !== null) {
      const keep = snapshot.block?.name === name && now !== null ? snapshot.block : null;
      const wanted = keep ? prependSetupBlock(before, { global: keep.global, agent: extractAgentSetupScript(now!, keep.global) }) : before;
      if (now === wanted) continue;
      await writeOwnFile(file, wanted, 0o755);
      changed.push(name);
    } else if (await lstat(file).catch(() => null)) {
      await rm(file, { recursive: true, force: true });
      changed.push(name);
    }
  }
  return changed;
}

/** After the agent's runs: its changes to the start-up files outside the setup block are undone, and said so. */
export async function putBackStartupFiles(homeDir: string, snapshot: StartupSnapshot, log: Logger, taskId?: string): Promise<void> {
  try {
    const changed = await restoreStartupFiles(homeDir, snapshot);
    if (changed.length)
      log.warn(
        `${changed.join(", ")}: put back as the worker wrote ${changed.length === 1 ? "it" : "them"} (only the part between the setup markers is the agent's, and it goes through identity sync)`,
        taskId,
      );
  } catch (error) {
    log.warn(`could not put back the start-up file: ${(error as Error).message}`, taskId);
  }
}
