// What the agent may not leave in its checkout's git config for the worker's own git
// commands (fetch, checkout, commit, push: worker/git-workflow.ts, worker/checkout-gate.ts).
// The agent owns the checkout and can write .git/config; git reads it for every
// command the worker runs there. Two defences:
// - settings a `-c` on the command line can switch off are switched off for every
//   git the worker runs (WORKER_GIT_OVERRIDES in worker/git.ts): no hooks, no
//   fsmonitor program, no submodule recursion, no ext:: transport. Race-free: `-c`
//   wins over every file;
// - entries that send the worker's fetch or push elsewhere, or run a program of the
//   agent's on the way (an include of a file it wrote, an insteadOf rule for the
//   remote's address, upload-pack / receive-pack, an ssh command, a credential
//   helper, a proxy, a filter, textconv or merge driver...), cannot be switched off
//   that way: they are removed from the checkout's own config files before each
//   fetch, commit and push, and said so.
// Git's global and system settings are the operator's (worker/README.md: a root-owned
// GIT_CONFIG_GLOBAL in the image) and are left alone.
import { git } from "./git";

/** Entries of the checkout's config that change where, or through what, the worker's git reaches the remote. */
function unwanted(key: string, remote: string): boolean {
  const k = key.toLowerCase();
  const r = remote.toLowerCase();
  return (
    k === "include.path" ||
    /^includeif\..+\.path$/.test(k) ||
    [`remote.${r}.uploadpack`, `remote.${r}.receivepack`, `remote.${r}.proxy`, `remote.${r}.vcs`].includes(k) ||
    ["core.sshcommand", "core.gitproxy", "core.askpass", "core.worktree", "commit.gpgsign"].includes(k) ||
    /^credential\./.test(k) ||
    /^gpg\./.test(k) ||
    /^protocol\./.test(k) ||
    /^https?\.(.+\.)?(proxy|sslverify|sslcainfo|sslcapath|sslcert|sslkey)$/.test(k) ||
    // Programs git runs on the files themselves: a clean or smudge filter (git add, checkout),
    // a textconv or external diff, a merge driver (rebase, merge). One that hangs holds the worker.
    /^filter\./.test(k) ||
    /^diff\..+\.(textconv|command)$/.test(k) ||
    k === "diff.external" ||
    /^merge\..+\.driver$/.test(k)
  );
}

const REWRITE = /^url\.(.+)\.(insteadof|pushinsteadof)$/i;

type Entry = { key: string; value: string };

async function localEntries(dir: string, scope: "--local" | "--worktree"): Promise<Entry[]> {
  // --local / --worktree read that one file, and its includes are not followed (each is one entry here).
  const listed = await git(dir, ["config", scope, "--list", "--null"]);
  if (!listed.ok) return [];
  return listed.stdout
    .split("\0")
    .filter(Boolean)
    .map((item) => {
      const cut = item.indexOf("\n");
      return cut === -1 ? { key: item, value: "" } : { key: item.slice(0, cut), value: item.slice(cut + 1) };
    });
}

/**
 * Removes from the checkout's own config files (.git/config, and config.worktree when
 * the repository has one) what would send the worker's fetch or push elsewhere or run
 * a program on the way: includes, insteadOf / pushInsteadOf rules that rewrite one of
 * `addresses` (the remote's), and the entries `unwanted` names. Answers what it
 * removed, as `key=value`, for the log and the task's timeline.
 */
export async function removeRedirects(dir: string, remote: string, addresses: string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const scope of ["--local", "--worktree"] as const) {
    for (const { key, value } of await localEntries(dir, scope)) {
      const rewrite = REWRITE.exec(key);
      const drop = rewrite ? value !== "" && addresses.some((address) => address.startsWith(value)) : unwanted(key, remote);
      if (!drop) continue;
      const unset = await git(dir, ["config", scope, "--fixed-value", "--unset-all", key, value]);
      if (unset.ok) removed.push(`${key}=${value}`);
    }
  }
  return removed;
}

/**
 * Where the rules that still rewrite the remote's address come from (files other than
 * the checkout's own, which the worker does not change), for a refusal that says what
 * to remove.
 */
export async function rewriteOrigins(dir: string): Promise<string> {
  const found = await git(dir, ["config", "--show-origin", "--get-regexp", "^url\\..*\\.(push)?insteadof$"]);
  return found.ok
    ? found.stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => line.replace(/\t/, ": "))
        .join("; ")
    : "";
}
