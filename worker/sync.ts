// Sends what the agent changed back to the app, while it runs (debounced, on file
// change) and once more when it stops. Identity files go to PUT
// /api/worker/identity/{kind} against the version they were written from; the
// start-up file contributes only its marker block minus the global script; files
// under memory/ become memories. Nothing the agent wrote is dropped: a 409 is
// resent as a proposal against the current version, and what could not be sent
// by the end of a task (the app down, a 429 on the agent's hourly quota) is kept
// in the worker's own state file and sent again from the next task.
import { createHash } from "node:crypto";
import type { FSWatcher } from "node:fs";
import { lstat, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { IDENTITY_FILE_NAMES, type IdentityKind, identityKindSchema } from "../lib/contracts/identity";
import { extractAgentSetupScript, prependSetupBlock } from "../lib/setup-script/compose";
import { type ApiClient, WorkerApiError } from "./api-client";
import type { Logger } from "./log";
import { watchFolder } from "./watch-tree";
import {
  FILE_KINDS,
  MEMORY_DIR,
  NotUtf8Error,
  type PreparedWorkspace,
  readHomeFile,
  readIfExists,
  type TextReadOptions,
  writeOwnFile,
} from "./workspace";

type FileState = { base: string | null; synced: string };
type SendOutcome = SyncOutcome & {
  versionId?: string;
  /** Applied without a new version: the app already had this text. */
  unchanged?: boolean;
  proposalId?: string;
  status?: number;
  code?: string;
  base?: string | null;
  /** A refusal in the app's own words, for the agent (`swarm identity`): the detail without the status the CLI prints anyway. */
  said?: string;
};
export type SyncOutcome = { kind: IdentityKind; result: "applied" | "pending" | "refused" | "conflict_proposed" | "error"; detail: string };

const MAX_MEMORY_FILE_BYTES = 256 * 1024;

/** A profile's refusal keeps the text as a proposal; say where the agent finds it. */
function keptAs(error: WorkerApiError): string {
  const id = (error.details as { proposalId?: unknown } | undefined)?.proposalId;
  return typeof id === "string" ? `; your text is kept as refused proposal ${id} (swarm identity proposals)` : "";
}

const hash = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * What the worker keeps between tasks, beside the agent's home (never in it: the
 * agent must not be able to mark a file as sent): the hash of each memory file as
 * the app has it, and identity edits not sent by the end of their task.
 */
const syncStateSchema = z.object({
  /** Whose: a WORKSPACE_DIR reused for another agent does not hand it this one's edits. */
  agentId: z.string(),
  memorySent: z.record(z.string(), z.string()),
  unsent: z.array(z.object({ kind: identityKindSchema, content: z.string(), base: z.string().nullable(), taskId: z.string() })),
});
type SyncState = z.infer<typeof syncStateSchema>;

/** The state file's content; null when there is none yet (or it is unreadable, which is logged). */
async function readSyncState(file: string, log: Logger): Promise<SyncState | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.warn(`reading ${file}: ${(error as Error).message}`);
    return null;
  }
  try {
    return syncStateSchema.parse(JSON.parse(text));
  } catch (error) {
    log.warn(`${file} is not a sync state this worker reads; starting afresh: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
}

export class WorkspaceSync {
  private readonly state = new Map<IdentityKind, FileState>();
  private readonly memoryHashes = new Map<string, string>();
  private memoryChanged = false;
  /** Identity edits not sent by the end of a task, as last saved (rewritten by keepUnsent()). */
  private unsent: SyncState["unsent"] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private watchers: FSWatcher[] = [];
  private memoryWatched = false;
  readonly outcomes: SyncOutcome[] = [];

  constructor(
    private readonly options: {
      api: ApiClient;
      log: Logger;
      taskId: string;
      homeDir: string;
      prepared: PreparedWorkspace;
      debounceMs: number;
      /** The worker's state file (worker/task-runner.ts puts it in WORKSPACE_DIR, outside the home). */
      stateFile: string;
      /** The agent this worker runs as (its registration). */
      agentId: string;
    },
  ) {
    for (const [kind, file] of options.prepared.files) this.state.set(kind, { base: file.versionId, synced: file.content });
    const setup = options.prepared.setupScript;
    this.state.set("SETUP_SCRIPT", { base: setup.versionId, synced: setup.synced });
  }

  /**
   * Before the agent runs: which memory files the app already has (from the state
   * file; on a worker's first task, the files already there), and the identity
   * edits an earlier task could not send, written back into the home so that the
   * first sync sends them (against the version they were written from: a 409 makes
   * them proposals against the current one).
   */
  async restore(): Promise<number> {
    const { stateFile, log, taskId, agentId } = this.options;
    let saved = await readSyncState(stateFile, log);
    if (saved && saved.agentId !== agentId) {
      log.warn(
        `${stateFile} is another agent's (${saved.agentId}): its unsent edits are not this agent's to send; starting afresh`,
        taskId,
      );
      saved = null;
    }
    if (saved) {
      for (const [file, digest] of Object.entries(saved.memorySent)) this.memoryHashes.set(file, digest);
    } else {
      for (const file of await this.memoryFiles()) {
        const content = await readIfExists(path.join(this.options.homeDir, file));
        if (content !== null) this.memoryHashes.set(file, hash(content));
      }
      this.memoryChanged = true;
    }
    this.unsent = saved?.unsent ?? [];
    let carried = 0;
    for (const entry of this.unsent) {
      const state = this.state.get(entry.kind);
      // Gone from the app, or the app's version is this text already (it was applied after all).
      if (!state || entry.content === state.synced) continue;
      carried++;
      log.info(`${this.fileName(entry.kind)}: an edit from task ${entry.taskId} was not sent yet; sending it now`, taskId);
      await this.writeKind(entry.kind, entry.content);
      this.state.set(entry.kind, { base: entry.base, synced: state.synced });
    }
    await this.saveState();
    return carried;
  }

  /**
   * After the last sync of the task: what is still not sent is kept for the next
   * task (the home's files are rewritten from the app's versions then).
   */
  keepUnsent(): Promise<void> {
    // After any sync still under way.
    const run = this.chain.then(() => this.saveUnsent());
    this.chain = run.catch(() => {});
    return run;
  }

  private async saveUnsent(): Promise<void> {
    const { log, taskId } = this.options;
    const current = await this.currentContents();
    const unsent: SyncState["unsent"] = [];
    for (const [kind, content] of current) {
      const state = this.state.get(kind);
      if (state && content !== state.synced) unsent.push({ kind, content, base: state.base, taskId });
    }
    if (unsent.length) {
      log.warn(`not sent yet, kept for the next task: ${unsent.map((entry) => this.fileName(entry.kind)).join(", ")}`, taskId);
    }
    this.unsent = unsent;
    await this.saveState();
  }

  private async saveState(): Promise<void> {
    const { stateFile } = this.options;
    const state: SyncState = { agentId: this.options.agentId, memorySent: Object.fromEntries(this.memoryHashes), unsent: this.unsent };
    const temp = `${stateFile}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    await rename(temp, stateFile).catch(async (error) => {
      await rm(temp, { force: true });
      throw error;
    });
    this.memoryChanged = false;
  }

  /** Watches the workspace root and memory/ until stop(); every change schedules a sync. */
  watch(): void {
    const { homeDir, log, taskId, debounceMs } = this.options;
    const schedule = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        // A live sync that fails is retried by the next change and by the one at the agent's exit.
        this.syncNow("file change").catch((error: Error) => log.warn(`sync after a file change failed: ${error.message}`, taskId));
      }, debounceMs);
    };
    // Without live sync the agent's changes still go at its exit (syncNow("agent exit")).
    const onError = (error: Error) => log.warn(`watching ${homeDir} for changes: ${error.message}`, taskId);
    const watchMemory = () => {
      if (this.memoryWatched) return;
      // memory/ may not exist yet; the root watcher sees it appear.
      const watcher = watchFolder(path.join(homeDir, MEMORY_DIR), { recursive: true, onChange: schedule, onError });
      if (!watcher) return;
      this.watchers.push(watcher);
      this.memoryWatched = true;
    };
    const root = watchFolder(homeDir, {
      recursive: false,
      onChange: (name) => {
        if (name === MEMORY_DIR) watchMemory();
        schedule();
      },
      onError,
    });
    if (root) this.watchers.push(root);
    watchMemory();
  }

  stop(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    // watch() may be called again (the reflection turn after the task's run).
    this.memoryWatched = false;
  }

  /** One sync at a time, in order: a second trigger waits for the first. */
  syncNow(why: string): Promise<void> {
    const run = this.chain.then(() => this.syncOnce(why));
    this.chain = run.catch(() => {});
    return run;
  }

  /** Base version the CLI's explicit writes use (the file's current base for this task). */
  baseOf(kind: IdentityKind): string | null {
    return this.state.get(kind)?.base ?? null;
  }

  /**
   * A `swarm identity write` the app applied: the workspace file takes the new
   * content (the start-up file its block), so the file and its base agree and the
   * file sync does not send it again. A pending proposal changes nothing here.
   */
  async adoptApplied(kind: IdentityKind, content: string, versionId: string): Promise<void> {
    const synced = await this.writeKind(kind, content);
    this.state.set(kind, { base: versionId, synced });
  }

  /** Writes one kind's content into the home (the setup script as the start-up file's block); returns what sync reads back. */
  private async writeKind(kind: IdentityKind, content: string): Promise<string> {
    const { homeDir, prepared } = this.options;
    if (kind === "SETUP_SCRIPT") {
      const file = path.join(homeDir, prepared.startupFile);
      const scripts = { global: prepared.setupScript.global, agent: content };
      const written = prependSetupBlock((await readIfExists(file)) ?? "", scripts);
      await writeOwnFile(file, written);
      return extractAgentSetupScript(written, scripts.global);
    }
    await writeOwnFile(path.join(homeDir, IDENTITY_FILE_NAMES[kind]), content);
    return content;
  }

  private fileName(kind: IdentityKind): string {
    return kind === "SETUP_SCRIPT" ? "setup script" : IDENTITY_FILE_NAMES[kind];
  }

  /** Each kind's text as it stands in the home (kinds whose file is gone are left out). */
  private async currentContents(): Promise<Map<IdentityKind, string>> {
    const { homeDir, prepared } = this.options;
    const contents = new Map<IdentityKind, string>();
    for (const kind of FILE_KINDS) {
      const content = await this.readText(path.join(homeDir, IDENTITY_FILE_NAMES[kind]), readIfExists);
      if (content !== null) contents.set(kind, content);
    }
    const startup = await this.readText(path.join(homeDir, prepared.startupFile), readIfExists);
    if (startup !== null) contents.set("SETUP_SCRIPT", extractAgentSetupScript(startup, prepared.setupScript.global));
    return contents;
  }

  /** Files that are not UTF-8 text are not sent (decoded, their bytes would become U+FFFD); said once until they change. */
  private readonly notUtf8 = new Set<string>();
  private async readText(file: string, read: (file: string, options: TextReadOptions) => Promise<string | null>) {
    try {
      const text = await read(file, { utf8Only: true });
      this.notUtf8.delete(file);
      return text;
    } catch (error) {
      if (!(error instanceof NotUtf8Error)) throw error;
      if (!this.notUtf8.has(file)) this.options.log.warn(`sync ${error.message}`, this.options.taskId);
      this.notUtf8.add(file);
      return null;
    }
  }

  private async syncOnce(why: string): Promise<void> {
    for (const [kind, content] of await this.currentContents()) await this.syncFile(kind, content, why);
    await this.syncMemory();
    if (this.memoryChanged) await this.saveState();
  }

  private async syncFile(kind: IdentityKind, content: string, why: string): Promise<void> {
    const state = this.state.get(kind) ?? { base: null, synced: "" };
    if (content === state.synced) return;
    const outcome = await this.send({
      kind,
      content,
      mode: "write",
      reason: `edited by the agent during the task (${why})`,
    });
    if (outcome.result === "error") return;
    const base = outcome.versionId ?? (outcome.result === "conflict_proposed" ? (outcome.base ?? state.base) : state.base);
    this.state.set(kind, { base, synced: content });
  }

  /** One identity write with the 409 rule; returns what happened (also logged and kept in outcomes). */
  async send({
    kind,
    content,
    mode,
    reason,
  }: {
    kind: IdentityKind;
    content: string;
    mode: "write" | "propose";
    reason: string;
  }): Promise<SendOutcome> {
    const { api, log, taskId } = this.options;
    const file = this.fileName(kind);
    const base = this.baseOf(kind);
    const record = (outcome: SendOutcome) => {
      this.outcomes.push({ kind: outcome.kind, result: outcome.result, detail: outcome.detail });
      const level = outcome.result === "error" || outcome.result === "refused" ? "warn" : "info";
      log[level](`sync ${file}: ${outcome.detail}`, taskId);
      return outcome;
    };
    try {
      const result = await api.putIdentity(kind, { content, baseVersionId: base, reason, mode, taskId });
      return result.status === "applied"
        ? record({
            kind,
            result: "applied",
            detail: result.unchanged
              ? `unchanged (version ${result.versionId} already has this text)`
              : `applied as version ${result.versionId}`,
            versionId: result.versionId,
            unchanged: result.unchanged === true,
            status: 200,
          })
        : record({
            kind,
            result: "pending",
            detail: `queued as proposal ${result.proposalId} (202)`,
            proposalId: result.proposalId,
            status: 202,
          });
    } catch (error) {
      if (!(error instanceof WorkerApiError)) throw error;
      if (error.status === 409) return record(await this.proposeAgainstCurrent({ kind, content, reason, error }));
      if (error.status === 403 || error.status === 413 || error.status === 400 || error.status === 404) {
        return record({
          kind,
          result: "refused",
          detail: `refused (${error.status} ${error.code}): ${error.appMessage}${keptAs(error)}`,
          said: `${error.appMessage}${keptAs(error)}`,
          status: error.status,
          code: error.code,
        });
      }
      return record({ kind, result: "error", detail: `not sent, will retry: ${error.message}`, status: error.status, code: error.code });
    }
  }

  /** The file moved on since the task started: propose the agent's text against the current version. */
  private async proposeAgainstCurrent({
    kind,
    content,
    reason,
    error,
  }: {
    kind: IdentityKind;
    content: string;
    reason: string;
    error: WorkerApiError;
  }): Promise<SendOutcome> {
    const { api, taskId } = this.options;
    const details = (error.details ?? {}) as { currentVersionId?: unknown };
    let current = typeof details.currentVersionId === "string" ? details.currentVersionId : undefined;
    try {
      if (current === undefined) {
        const bundle = await api.bundle(taskId);
        current = bundle.files.find((file) => file.kind === kind)?.versionId ?? undefined;
      }
      const result = await api.putIdentity(kind, {
        content,
        baseVersionId: current ?? null,
        reason: `${reason}; the file changed since the task started (409 ${error.code}), so this is proposed against the current version`,
        // Never applied as it stands, power profile included: it would overwrite the newer version unseen.
        mode: "review",
        taskId,
      });
      if (result.status === "pending") {
        return {
          base: current ?? null,
          kind,
          result: "conflict_proposed",
          detail: `409 ${error.code}: resent as proposal ${result.proposalId} against ${current}`,
          proposalId: result.proposalId,
          status: 409,
        };
      }
      return {
        kind,
        result: "applied",
        detail: result.unchanged
          ? `409 ${error.code}: the current version ${result.versionId} already has this text`
          : `409 ${error.code}: resent and applied as ${result.versionId}`,
        versionId: result.versionId,
        unchanged: result.unchanged === true,
        status: 409,
      };
    } catch (retryError) {
      return {
        kind,
        result: "error",
        detail: `409 ${error.code}, and the proposal failed too: ${(retryError as Error).message}`,
        status: 409,
      };
    }
  }

  private async memoryFiles(): Promise<string[]> {
    const root = path.join(this.options.homeDir, MEMORY_DIR);
    try {
      // memory/ is the agent's: a symlink there (to /proc/<pid>, say) would make the worker read outside its home.
      if ((await lstat(root)).isSymbolicLink()) return [];
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
        .map((entry) => path.relative(this.options.homeDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
        .sort();
    } catch {
      return [];
    }
  }

  private async syncMemory(): Promise<void> {
    const { api, log, taskId, homeDir } = this.options;
    for (const file of await this.memoryFiles()) {
      // Only what lies in the home when it is read (a folder swapped for a symlink is not followed out);
      // gone (the agent may remove it at any moment), too large or not a plain file: skipped.
      const content = await this.readText(path.join(homeDir, file), (name, options) =>
        readHomeFile(homeDir, name, MAX_MEMORY_FILE_BYTES, options),
      ).catch(() => null);
      if (!content?.trim() || this.memoryHashes.get(file) === hash(content)) continue;
      const scope = file.startsWith(`${MEMORY_DIR}/shared/`) ? "swarm" : "agent";
      try {
        const { ids } = await api.storeMemory({ name: file, content, scope, source: "file_index", taskId, path: file });
        this.memoryHashes.set(file, hash(content));
        this.memoryChanged = true;
        log.info(`memory ${file} stored (${scope}, ${ids.length} chunk${ids.length === 1 ? "" : "s"})`, taskId);
      } catch (error) {
        const status = error instanceof WorkerApiError ? error.status : 0;
        log.warn(`memory ${file} not stored: ${(error as Error).message}`, taskId);
        // Refused for good (4xx other than 429): do not retry on every change.
        if (status >= 400 && status < 500 && status !== 429) {
          this.memoryHashes.set(file, hash(content));
          this.memoryChanged = true;
        }
      }
    }
  }
}
