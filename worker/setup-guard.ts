// The setup script's life in a worker (reference 000): it runs when the worker
// starts and again only when the composed script changes (its hash), between
// tasks, never inside one. A failure in strict mode (STARTUP_SCRIPT_STRICT, the
// default) stops the worker from claiming: it keeps checking the script, not the
// queue, until an edit changes it, so a broken script fails no task and leaves no
// lesson. Every run is reported to the app (POST /api/worker/setup-status).

import { agentEnv } from "./agent-env";
import { type ApiClient, WorkerApiError } from "./api-client";
import type { WorkerConfig } from "./config";
import { unignoredUntracked } from "./git-workflow";
import { type Logger, tail } from "./log";
import { runSetupScript } from "./setup-runner";
import { keepStartupBaseline } from "./startup-baseline";
import { snapshotStartupFiles, writeStartupFile } from "./workspace";
import type { WorkspaceLayout } from "./workspace-layout";

export class SetupGuard {
  private ranHash: string | null = null;
  /** Why the script must run again though it did not change (rerun), said on the log. */
  private rerunBecause: string | null = null;
  private blocked = false;
  private unsupported = false;
  /** A report the app did not take (unreachable): sent again at the next check. */
  private unsent: Parameters<ApiClient["setupStatus"]>[0] | null = null;

  constructor(private readonly options: { config: WorkerConfig; api: ApiClient; log: Logger; layout: WorkspaceLayout }) {}

  /** True when the worker may claim a task: the current script ran, and passed (or strict mode is off). */
  async ready(): Promise<boolean> {
    if (this.unsupported) return true;
    const { config, api, log, layout } = this.options;
    let script: Awaited<ReturnType<ApiClient["setupScript"]>>;
    try {
      script = await api.setupScript();
    } catch (error) {
      if (error instanceof WorkerApiError && error.status === 404) {
        log.warn("the app has no /api/worker/setup-script: the setup script is not run by this worker");
        this.unsupported = true;
        return true;
      }
      // The app is unreachable: the poll that follows backs off; a known-bad script still blocks.
      log.warn(`could not fetch the setup script: ${(error as Error).message}`);
      return !this.blocked;
    }
    if (script.hash === this.ranHash) {
      if (this.unsent) await this.report(this.unsent);
      return !this.blocked;
    }

    const startup = await writeStartupFile(layout.home, { global: script.global, agent: script.agent });
    // Between tasks the start-up files are as the worker left them: with the new block, they are the next start's too.
    await keepStartupBaseline(layout.root, await snapshotStartupFiles(layout.home));
    log.info(
      `setup script ${startup.name}: ${this.rerunBecause ? `running it again (${this.rerunBecause})` : this.ranHash === null ? "first run" : "it changed, running it again"}`,
    );
    this.rerunBecause = null;
    const before = layout.git ? await unignoredUntracked(layout.project, { each: true }) : null;
    const result = await runSetupScript({
      homeDir: layout.home,
      cwd: layout.project,
      startupFile: startup.name,
      env: agentEnv({ base: process.env, workspaceDir: layout.project, homeDir: layout.home }),
    });
    this.ranHash = script.hash;
    this.blocked = !result.ok && config.startupStrict;
    let output = tail(result.output, 16_000);
    const lost = before ? await this.cleanedAway(before) : null;
    if (lost) {
      log.warn(`setup script ${startup.name}: ${lost}`);
      // On the agent's page too, where operators read the script's output.
      const note = `[swarmdeck worker] ${lost}\n`;
      output = tail(output && !output.endsWith("\n") ? `${output}\n${note}` : `${output}${note}`, 16_000);
    }
    if (result.ok) log.info(`setup script ${startup.name} ran in ${result.durationMs} ms`);
    else if (this.blocked)
      log.error(
        `setup script ${startup.name} failed (exit ${result.code ?? "signal"}; STARTUP_SCRIPT_STRICT is on): claiming no tasks until it changes\n${tail(output.trim(), 2000)}`,
      );
    else log.warn(`setup script ${startup.name} failed (exit ${result.code ?? "signal"}); going on (STARTUP_SCRIPT_STRICT=false)`);
    await this.report({ status: result.ok ? "ok" : "failed", hash: script.hash, exitCode: result.code, output, blocking: this.blocked });
    return !this.blocked;
  }

  /**
   * What the script made in the checkout that the project does not ignore: the clean
   * before each task (git clean -fd) removes it, so the tasks would run without it.
   */
  private async cleanedAway(before: Set<string>): Promise<string | null> {
    const project = this.options.layout.project;
    const made = [...(await unignoredUntracked(project, { each: true }))].filter((file) => !before.has(file));
    if (made.length === 0) return null;
    // Named as git status names them: a new folder as one entry (deps/), not each of its files.
    const entries = [...(await unignoredUntracked(project))];
    const named = [...new Set(made.map((file) => entries.find((entry) => entry.endsWith("/") && file.startsWith(entry)) ?? file))];
    const shown = named.slice(0, 5).join(", ") + (named.length > 5 ? `, and ${named.length - 5} more` : "");
    return (
      `it left files in the project that its .gitignore does not ignore (${shown}); each task starts from a clean checkout ` +
      "(git clean -fd), which removes them before the agent runs. Ignore them in the project's .gitignore, or put them in $SWARMDECK_HOME"
    );
  }

  /** The next check runs the script again, changed or not (what it set up in the project is gone). */
  rerun(because: string): void {
    this.ranHash = null;
    this.rerunBecause = because;
  }

  private async report(body: Parameters<ApiClient["setupStatus"]>[0]): Promise<void> {
    try {
      await this.options.api.setupStatus(body);
      this.unsent = null;
    } catch (error) {
      this.unsent = body;
      this.options.log.warn(`could not report the setup script's status: ${(error as Error).message}`);
    }
  }
}
