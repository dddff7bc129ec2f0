// The project's repository must be reachable before a task is claimed: a claim whose
// checkout cannot be fetched is given back, and a give-back uses one of the task's
// attempts (docs/architecture.md, worker protocol), so an unreachable REPO_URL would
// burn the whole queue. Before each claim the worker fetches; while that fails it
// claims nothing and tries again with backoff, like a strict setup-script failure,
// and logs once per change of state.
import { backoffDelay } from "./backoff";
import { git } from "./git";
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

  constructor(private readonly options: { dir: string; remote: string; log: Logger }) {}

  /** Fetches; true when a task may be claimed. */
  async ready(): Promise<boolean> {
    const { dir, remote, log } = this.options;
    const fetched = await git(dir, ["fetch", "--quiet", remote]);
    const next: FetchState = fetched.ok
      ? { ok: true }
      : { ok: false, reason: (fetched.stderr || fetched.stdout).trim().split("\n")[0] || `exit ${fetched.code}` };
    const change = fetchTransition(this.state, next, remote);
    if (change) log[change.level](change.text);
    this.state = next;
    this.failures = next.ok ? 0 : this.failures + 1;
    if (next.ok) this.fetchedAt = Date.now();
    return next.ok;
  }

  /** How long to wait before the next fetch while it fails. */
  retryDelay(): number {
    return backoffDelay(this.failures - 1, { baseMs: 1_000, maxMs: 60_000 });
  }
}
