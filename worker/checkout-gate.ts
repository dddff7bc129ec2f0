// The project's repository must be reachable before a task is claimed: a claim whose
// checkout cannot be fetched is given back, and a give-back uses one of the task's
// attempts (docs/architecture.md, worker protocol), so an unreachable REPO_URL would
// burn the whole queue. Before each claim the worker fetches; while that fails it
// claims nothing and tries again with backoff, like a strict setup-script failure,
// and logs once per change of state.
// The remote is put back first (worker/git-workflow.ts pinRemote): an agent's earlier
// task or idle run may have redirected it, and the fetch would go there.
import { backoffDelay } from "./backoff";
import { git } from "./git";
import { fetchMain, pinRemote, type RemoteUrls, repairCheckout } from "./git-workflow";
import type { Logger } from "./log";

/** `checkout`: the fetch worked, main could not be checked out. */
export type FetchState = { ok: true } | { ok: false; reason: string; checkout?: boolean };

/** What to log when the state changes (null: no change, stay quiet). */
export function fetchTransition(
  previous: FetchState | null,
  next: FetchState,
  remote: string,
): { level: "info" | "error"; text: string } | null {
  const what = (state: FetchState) => (!state.ok && state.checkout ? "the checkout" : `git fetch ${remote}`);
  if (next.ok) return previous && !previous.ok ? { level: "info", text: `${what(previous)} works again: claiming tasks` } : null;
  if (previous && !previous.ok && previous.reason === next.reason) return null;
  return {
    level: "error",
    text: `${what(next)} fails: claiming no tasks until it works again (retrying with backoff): ${next.reason}`,
  };
}

export class CheckoutGate {
  private state: FetchState | null = null;
  private failures = 0;
  /** When the last fetch that worked ended (ms since the epoch; 0: none yet). */
  fetchedAt = 0;

  constructor(private readonly options: { dir: string; remote: string; main: string; log: Logger; pinned?: RemoteUrls }) {}

  /** Set when a claimed task's checkout could not be prepared though the fetch worked: the next check prepares main first. */
  private broken: string | null = null;

  /** A task's checkout could not be prepared: no claim until main can be checked out again (each give-back uses an attempt). */
  markBroken(reason: string): void {
    this.broken = reason;
  }

  /** Puts the remote back and fetches (and, after a checkout that failed, checks main out); true when a task may be claimed. */
  async ready(): Promise<boolean> {
    const { dir, remote, main, log, pinned } = this.options;
    let next = await this.fetch(dir, remote, main, log, pinned);
    if (next.ok && this.broken) next = await this.checkOutMain(dir, remote, main, log);
    const change = fetchTransition(this.state, next, remote);
    if (change) log[change.level](change.text);
    this.state = next;
    this.failures = next.ok ? 0 : this.failures + 1;
    if (next.ok) this.fetchedAt = Date.now();
    return next.ok;
  }

  private async fetch(dir: string, remote: string, main: string, log: Logger, pinned?: RemoteUrls): Promise<FetchState> {
    if (pinned) {
      try {
        const was = await pinRemote(dir, remote, pinned);
        if (was) log.warn(`git: ${remote} had been changed in the checkout (${was}): put back to ${pinned.fetch}`);
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    }
    const fetched = await fetchMain(dir, remote, main);
    if (fetched.rewritten) log.warn(`git: ${fetched.rewritten}`);
    return fetched.ok
      ? { ok: true }
      : { ok: false, reason: (fetched.stderr || fetched.stdout).trim().split("\n")[0] || `exit ${fetched.code}` };
  }

  /** main checked out clean, as a task's checkout starts (prepareTaskBranch): what failed if it cannot be. */
  private async checkOutMain(dir: string, remote: string, main: string, log: Logger): Promise<FetchState> {
    let repaired: string[];
    try {
      repaired = await repairCheckout(dir);
    } catch (error) {
      return {
        ok: false,
        checkout: true,
        reason: `${(error as Error).message} (fix ${dir}, or remove it for a fresh clone at the next start)`,
      };
    }
    if (repaired.length > 0) log.warn(`git: the checkout was repaired: ${repaired.join("; ")}`);
    for (const args of [
      ["checkout", "--quiet", "-f", "-B", main, `refs/remotes/${remote}/${main}`],
      ["clean", "-fdq"],
    ]) {
      const result = await git(dir, args);
      if (!result.ok) {
        const why = (result.stderr || result.stdout).trim().split("\n")[0] || `exit ${result.code}`;
        return {
          ok: false,
          checkout: true,
          reason: `git ${args[0]}: ${why} (fix ${dir}, or remove it for a fresh clone at the next start)`,
        };
      }
    }
    this.broken = null;
    return { ok: true };
  }

  /** How long to wait before the next fetch while it fails. */
  retryDelay(): number {
    return backoffDelay(this.failures - 1, { baseMs: 1_000, maxMs: 60_000 });
  }
}
