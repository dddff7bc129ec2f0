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
import { pinRemote, type RemoteUrls } from "./git-workflow";
import type { Logger } from "./log";

export type FetchState = { ok: true } | { ok: false; reason: string };

/** What to log when the state changes (null: no change, stay quiet). */
export function fetchTransition(
  previous: FetchState | null,
  next: FetchState,
  remote: string,
): { level: "info" | "error"; text: string } | null {
  if (next.ok) return previous && !previous.ok ? { level: "info", text: `git fetch ${remote} works again: claiming tasks` } : null;
  if (previous && !previous.ok && previous.reason === next.reason) return null;
  return {
    level: "error",
    text: `git fetch ${remote} fails: claiming no tasks until it works again (retrying with backoff): ${next.reason}`,
  };
}

export class CheckoutGate {
  private state: FetchState | null = null;
  private failures = 0;
  /** When the last fetch that worked ended (ms since the epoch; 0: none yet). */
  fetchedAt = 0;

  constructor(private readonly options: { dir: string; remote: string; log: Logger; pinned?: RemoteUrls }) {}

  /** Puts the remote back and fetches; true when a task may be claimed. */
  async ready(): Promise<boolean> {
    const { dir, remote, log, pinned } = this.options;
    const next = await this.fetch(dir, remote, log, pinned);
    const change = fetchTransition(this.state, next, remote);
    if (change) log[change.level](change.text);
    this.state = next;
    this.failures = next.ok ? 0 : this.failures + 1;
    if (next.ok) this.fetchedAt = Date.now();
    return next.ok;
  }

  private async fetch(dir: string, remote: string, log: Logger, pinned?: RemoteUrls): Promise<FetchState> {
    if (pinned) {
      try {
        const was = await pinRemote(dir, remote, pinned);
        if (was) log.warn(`git: ${remote} had been changed in the checkout (${was}): put back to ${pinned.fetch}`);
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    }
    const fetched = await git(dir, ["fetch", "--quiet", remote]);
    return fetched.ok
      ? { ok: true }
      : { ok: false, reason: (fetched.stderr || fetched.stdout).trim().split("\n")[0] || `exit ${fetched.code}` };
  }

  /** How long to wait before the next fetch while it fails. */
  retryDelay(): number {
    return backoffDelay(this.failures - 1, { baseMs: 1_000, maxMs: 60_000 });
  }
}
