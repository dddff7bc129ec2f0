// The git workflow of reference 004, for a workspace that is a git clone: each task
// on branch task-<id> from the latest main; after the agent, a verification gate
// (conflict markers, ./verify.sh) with VERIFY_RETRIES re-runs of the agent fed the
// errors; commit, push, then a fast-forward of main, rebasing (or merging with the
// agent resolving conflicts) and retrying up to 3 times when another agent won the race.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants, existsSync, realpathSync } from "node:fs";
import { lstat, open, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { agentProcessEnv, agentSpawnIdentity } from "./agent-user";
import { type GitResult, git, gitOrThrow } from "./git";
import { removeRedirects, rewriteOrigins } from "./git-config-guard";
import { killRunLeftovers, VERIFY_RUN_VARIABLE } from "./leftover-agents";
import { tail } from "./log";
import { signalGroup, trackGroup, untrackGroup, whenEnded } from "./process-group";

export type GitSettings = { dir: string; remote: string; main: string };
export type GitOutcome =
  | {
      kind: "merged";
      branch: string;
      sha: string;
      attempts: number;
      verifyRuns: number /** Why the merged branch is still on the remote. */;
      leftover?: string;
    }
  | { kind: "no_changes"; branch: string }
  /** `refused`: the agent left the remote pointing elsewhere and it could not be put back, or removed the checkout's .git; the work is not pushed. */
  | { kind: "failed"; branch: string; reason: string; refused?: true };
/** The remote's addresses from the worker's start (worker/workspace-layout.ts), kept by pinRemote; `onRepinned` hears what the agent had left. */
export type RemotePin = {
  pinned?: RemoteUrls;
  onRepinned?: (was: string) => void;
  /** main's history was rewritten on the remote (fetchMain's `rewritten`). */
  onMainRewritten?: (what: string) => void;
};
/** Runs the agent once more with this prompt (fix the verification errors, resolve a conflict). */
export type AgentRerun = (prompt: string, purpose: string) => Promise<{ ok: boolean; output: string }>;

export const MERGE_ATTEMPTS = 3;
const CONFLICT_MARKER = /^(<{7} |>{7} |={7}$)/m;

export async function isGitWorkspace(dir: string): Promise<boolean> {
  const result = await git(dir, ["rev-parse", "--show-toplevel"]);
  return result.ok && realpathSync(result.stdout.trim()) === realpathSync(dir);
}

/**
 * The checkout's untracked files that the project does not ignore: what the clean
 * before each task removes. As git status shows them (a new folder as one entry,
 * `node_modules/`), or with `each`, every file on its own (so a file added to a
 * folder that was untracked already shows too). Empty when git cannot tell.
 */
export async function unignoredUntracked(dir: string, options: { each?: boolean } = {}): Promise<Set<string>> {
  const result = await git(dir, ["status", "--porcelain=v1", "-z", `--untracked-files=${options.each ? "all" : "normal"}`]);
  if (!result.ok) return new Set();
  return new Set(
    result.stdout
      .split("\0")
      .filter((entry) => entry.startsWith("?? "))
      .map((entry) => entry.slice(3)),
  );
}

/** A remote's addresses as git resolves them (url, pushurl and insteadOf rules applied). */
export type RemoteUrls = { fetch: string; push: string };

export async function remoteUrls(dir: string, remote: string): Promise<RemoteUrls | null> {
  const fetched = await git(dir, ["remote", "get-url", remote]);
  const pushed = await git(dir, ["remote", "get-url", "--push", remote]);
  return fetched.ok && pushed.ok ? { fetch: fetched.stdout.trim(), push: pushed.stdout.trim() } : null;
}

/** The checkout's own remote addresses as written, before any insteadOf rule rewrites them. */
export async function writtenAddresses(dir: string, remote: string): Promise<string[]> {
  const written = await git(dir, [
    "config",
    "--local",
    "--get-regexp",
    `^remote\\.${remote.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(push)?url$`,
  ]);
  return written.stdout
    .split("\n")
    .map((line) => line.slice(line.indexOf(" ") + 1))
    .filter(Boolean);
}

/** The remote's addresses cannot be put back: the worker neither fetches nor pushes there. */
export class RemoteRedirectError extends Error {}

/**
 * Puts the remote back to the addresses it had when the worker started. The agent can
 * rewrite the checkout's .git/config (a pushurl, another url, an insteadOf rule, an
 * include of a file it wrote), and the worker would then fetch main from, or merge the
 * task into, another repository while it reported the task merged into the project's
 * main. What redirects the remote, or runs a program on the way, is removed from the
 * checkout's config (worker/git-config-guard.ts) and the addresses are set again.
 * Answers what the agent had left (null: nothing); throws RemoteRedirectError when the
 * remote still resolves elsewhere (a rule in a file the worker does not change).
 */
export async function pinRemote(dir: string, remote: string, pinned: RemoteUrls): Promise<string | null> {
  const found = await remoteUrls(dir, remote);
  const removed = await removeRedirects(dir, remote, [pinned.fetch, pinned.push, ...(await writtenAddresses(dir, remote))]);
  const resolved = removed.length ? await remoteUrls(dir, remote) : found;
  const moved = !resolved || resolved.fetch !== pinned.fetch || resolved.push !== pinned.push;
  if (moved) {
    if (!resolved) await git(dir, ["remote", "add", "--", remote, pinned.fetch]);
    await git(dir, ["config", "--local", "--unset-all", `remote.${remote}.pushurl`]);
    await gitOrThrow(dir, ["remote", "set-url", remote, pinned.fetch]);
    if (pinned.push !== pinned.fetch) await gitOrThrow(dir, ["remote", "set-url", "--push", remote, pinned.push]);
  }
  const now = await remoteUrls(dir, remote);
  if (!now || now.fetch !== pinned.fetch || now.push !== pinned.push) {
    const rules = await rewriteOrigins(dir);
    throw new RemoteRedirectError(
      `the checkout's ${remote} no longer resolves to ${pinned.fetch} (fetch ${now?.fetch ?? "-"}, push ${now?.push ?? "-"}) and the worker cannot put it back: ` +
        `${rules ? `rewritten by ${rules}` : "its git config was changed"} (the worker removes such rules from the checkout's .git/config only); not fetching or pushing there`,
    );
  }
  if (!moved && !removed.length) return null;
  const was = !found
    ? "removed"
    : found.fetch !== pinned.fetch || found.push !== pinned.push
      ? `fetch ${found.fetch}, push ${found.push}`
      : "";
  return [was, removed.length ? `removed from its .git/config: ${removed.join(", ")}` : ""].filter(Boolean).join("; ");
}

export function taskBranch(taskId: string): string {
  return `task-${taskId.replace(/[^A-Za-z0-9_-]/g, "")}`;
}

/**
 * What the worker fetches: the remote's main into its remote-tracking ref, named in
 * full. The checkout's own `remote.<name>.fetch` is the agent's to change (`git remote
 * set-branches`), and a fetch by it would leave main as it was.
 */
export function mainRefspec(remote: string, main: string): string {
  return `+refs/heads/${main}:refs/remotes/${remote}/${main}`;
}

/**
 * Fetches the remote's main (mainRefspec); a remote without main yet (a new project) is
 * fetched as it is. `rewritten`: main's new commit does not descend from the one the
 * checkout had (a force push: by the agent, which can push from its checkout, or by
 * someone else), for the log and the task's timeline.
 */
export async function fetchMain(dir: string, remote: string, main: string): Promise<GitResult & { rewritten?: string }> {
  const tracking = `refs/remotes/${remote}/${main}`;
  const before = await git(dir, ["rev-parse", "--verify", "--quiet", tracking]);
  let fetched = await git(dir, ["fetch", "--quiet", remote, mainRefspec(remote, main)]);
  if (!fetched.ok && /couldn't find remote ref/i.test(fetched.stderr)) fetched = await git(dir, ["fetch", "--quiet", remote]);
  if (!fetched.ok || !before.ok) return fetched;
  const was = before.stdout.trim();
  // One more git in the common case (unchanged or moved on): main's new commit is read only for the message.
  if ((await git(dir, ["merge-base", "--is-ancestor", was, tracking])).ok) return fetched;
  const now = (await git(dir, ["rev-parse", "--verify", "--quiet", tracking])).stdout.trim();
  if (!now) return fetched;
  return {
    ...fetched,
    rewritten: `${main} on ${remote} was rewritten (a force push): it was ${was.slice(0, 12)}, it is ${now.slice(0, 12)}, which does not contain it`,
  };
}

/** Git's operations a command left half done, with the command that abandons each. */
const UNFINISHED: ReadonlyArray<{ marker: string; abort: string[] }> = [
  { marker: "rebase-merge", abort: ["rebase", "--abort"] },
  { marker: "rebase-apply", abort: ["rebase", "--abort"] },
  { marker: "MERGE_HEAD", abort: ["merge", "--abort"] },
  { marker: "CHERRY_PICK_HEAD", abort: ["cherry-pick", "--abort"] },
  { marker: "REVERT_HEAD", abort: ["revert", "--abort"] },
];

/**
 * Puts right what an agent (or a process killed mid-command) can leave in the checkout
 * that would make every later task's checkout fail or lose work: a rebase, merge or
 * cherry-pick left half done, a stale lock (nothing of the agent runs any more when
 * this is called), index entries flagged skip-worktree / assume-unchanged (their changes
 * would never be committed, and the checkout that follows keeps the flags) and ignore
 * rules in .git/info/exclude (the project's are its .gitignore). Answers what it did.
 */
export async function repairCheckout(dir: string): Promise<string[]> {
  const gitDir = path.join(dir, ".git");
  const repaired: string[] = [];
  // The locks first: an abort needs the index.
  for (const lock of ["index.lock", "HEAD.lock"]) {
    if (!existsSync(path.join(gitDir, lock))) continue;
    await rm(path.join(gitDir, lock), { force: true });
    repaired.push(`a stale .git/${lock} was removed`);
  }
  for (const { marker, abort } of UNFINISHED) {
    if (!existsSync(path.join(gitDir, marker))) continue;
    // An abort git refuses still leaves the state to drop: the checkout that follows resets the files.
    if (!(await git(dir, abort)).ok) await rm(path.join(gitDir, marker), { recursive: true, force: true });
    repaired.push(`a ${abort[0]} left unfinished was aborted`);
  }
  const exclude = path.join(gitDir, "info", "exclude");
  const rules = existsSync(exclude)
    ? (await readFile(exclude, "utf8")).split("\n").filter((line) => line.trim() && !line.startsWith("#"))
    : [];
  if (rules.length > 0) {
    await writeFile(exclude, "");
    repaired.push(`ignore rules in .git/info/exclude were cleared (${rules.slice(0, 3).join(", ")}${rules.length > 3 ? ", ..." : ""})`);
  }
  // ls-files -v tags an assume-unchanged entry in lower case and a skip-worktree one "S".
  const entries = (await git(dir, ["ls-files", "-v", "-z"])).stdout.split("\0");
  const tagged = (test: RegExp) => entries.filter((entry) => test.test(entry)).map((entry) => entry.slice(2));
  // One call per flag: update-index applies only one such option to each path.
  const skipped = tagged(/^S /);
  const assumed = tagged(/^[a-z] /);
  if (skipped.length > 0) await gitOrThrow(dir, ["update-index", "--no-skip-worktree", "--", ...skipped]);
  if (assumed.length > 0) await gitOrThrow(dir, ["update-index", "--no-assume-unchanged", "--", ...assumed]);
  const flagged = [...new Set([...skipped, ...assumed])];
  if (flagged.length > 0) {
    repaired.push(
      `skip-worktree / assume-unchanged flags were cleared (${flagged.slice(0, 3).join(", ")}${flagged.length > 3 ? ", ..." : ""})`,
    );
  }
  return repaired;
}

async function remoteHas(dir: string, remote: string, branch: string): Promise<boolean> {
  return (await git(dir, ["rev-parse", "--verify", "--quiet", `refs/remotes/${remote}/${branch}`])).ok;
}

/**
 * Latest main (a main that moves on after this is brought in before the merge), a clean tree (leftovers of an earlier, given-back task are dropped), then task-<id>.
 * The worker's own files are not in this checkout (worker/workspace-layout.ts), so nothing needs excluding.
 */
export async function prepareTaskBranch({
  dir,
  remote,
  main,
  taskId,
  fetched = false,
  pinned,
  onRepinned,
  onMainRewritten,
  onRepaired,
}: GitSettings & {
  taskId: string /** The remote was fetched a moment ago (the claim's check): no second fetch. */;
  fetched?: boolean;
  /** What repairCheckout put right, for the log and the task's timeline. */
  onRepaired?: (what: string) => void;
} & RemotePin): Promise<string> {
  const repinned = pinned ? await pinRemote(dir, remote, pinned) : null;
  if (repinned) onRepinned?.(repinned);
  const repaired = await repairCheckout(dir);
  if (repaired.length > 0) onRepaired?.(repaired.join("; "));
  // A fetch made through addresses the agent had changed is not the project's main.
  if (!fetched || repinned) {
    const result = await fetchMain(dir, remote, main);
    if (!result.ok) throw new Error(`git fetch ${remote} failed: ${(result.stderr || result.stdout).trim()}`);
    if (result.rewritten) onMainRewritten?.(result.rewritten);
  }
  // Full ref names: a branch or tag the agent named "origin/main" would make the short one ambiguous.
  if (await remoteHas(dir, remote, main))
    await gitOrThrow(dir, ["checkout", "--quiet", "-f", "-B", main, `refs/remotes/${remote}/${main}`]);
  else await gitOrThrow(dir, ["checkout", "--quiet", "-f", main]);
  await gitOrThrow(dir, ["clean", "-fdq"]);
  // Earlier tasks' branches that were never merged (a failure, a give-back): each task
  // starts over from main, so they would only pile up in the clone.
  const stale = (await git(dir, ["for-each-ref", "--format=%(refname:short)", `refs/heads/${taskBranch("")}*`])).stdout
    .split("\n")
    .filter(Boolean);
  if (stale.length > 0) await gitOrThrow(dir, ["branch", "--quiet", "-D", ...stale]);
  const branch = taskBranch(taskId);
  await gitOrThrow(dir, ["checkout", "--quiet", "-B", branch]);
  return branch;
}

/** The paths changed against HEAD and the untracked ones, as they are (-z: git quotes a name with non-ASCII characters otherwise). */
async function changedFiles(dir: string): Promise<string[]> {
  const tracked = await git(dir, ["diff", "--name-only", "-z", "HEAD"]);
  const untracked = await git(dir, ["ls-files", "-z", "--others", "--exclude-standard"]);
  return [...new Set(`${tracked.stdout}\0${untracked.stdout}`.split("\0").filter(Boolean))];
}

/** Files past this size are not scanned for conflict markers (a merge leaves them in text files people edit). */
const SCAN_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * The file's text when it is a regular file in the checkout, not too large to scan;
 * else null. Never follows a link: one to a FIFO or a device (/dev/zero) would
 * block the worker or never end.
 */
async function scannable(dir: string, file: string): Promise<string | null> {
  const full = path.join(dir, file);
  try {
    const info = await lstat(full);
    if (!info.isFile() || info.size > SCAN_LIMIT_BYTES) return null;
    const handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      // Still a regular file once open (it may have been swapped meanwhile).
      if (!(await handle.stat()).isFile()) return null;
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return null; // deleted or unreadable: nothing to scan
  }
}

async function runVerifyScript(dir: string, timeoutMs: number): Promise<{ ok: boolean; output: string; code: number | null }> {
  let output = "";
  // verify.sh is the project's (the agent can edit it): it runs like the agent, without the worker's token,
  // in a process group of its own, which goes when it ends or times out (a test server it started, say),
  // and with a mark of its own for what it started outside that group (worker/leftover-agents.ts).
  const run = randomUUID();
  const child = spawn("bash", ["./verify.sh"], {
    cwd: dir,
    env: { ...agentProcessEnv(process.env), [VERIFY_RUN_VARIABLE]: run },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    ...agentSpawnIdentity(),
  });
  trackGroup(child.pid);
  const keep = (chunk: Buffer) => {
    output = tail(output + chunk.toString("utf8"), 16 * 1024);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.on("error", (error) => {
    output += `\n${error.message}`;
  });
  let stopped = false;
  const timer = setTimeout(() => {
    stopped = true;
    signalGroup(child.pid, "SIGKILL");
  }, timeoutMs);
  const { code } = await whenEnded(child, () => {
    clearTimeout(timer);
    signalGroup(child.pid, "SIGKILL");
  });
  clearTimeout(timer);
  untrackGroup(child.pid);
  await killRunLeftovers({ [VERIFY_RUN_VARIABLE]: run });
  const ended = stopped ? null : code;
  return { ok: ended === 0, code: ended, output: stopped ? `${output}\n[verify.sh was stopped after ${timeoutMs} ms]` : output };
}

/** Conflict markers in changed files, then ./verify.sh when the project has one. */
export async function verifyWorkspace(dir: string, timeoutMs = 15 * 60_000): Promise<{ ok: boolean; errors: string }> {
  const marked: string[] = [];
  const changed = await changedFiles(dir);
  for (const file of changed) {
    const text = await scannable(dir, file);
    if (text !== null && CONFLICT_MARKER.test(text)) marked.push(file);
  }
  if (marked.length) return { ok: false, errors: `merge conflict markers left in: ${marked.join(", ")}` };
  // git lists an untracked repository of its own (a scaffold's `git init`) as its folder: committed, it is only a link.
  const nested = changed.filter((file) => file.endsWith("/") && existsSync(path.join(dir, file, ".git")));
  if (nested.length)
    return {
      ok: false,
      errors: nested
        .map(
          (folder) =>
            `${folder} is a git repository of its own (${folder}.git): its files would not be committed, only a link to a commit that exists nowhere else; remove ${folder}.git`,
        )
        .join("\n"),
    };
  if (!existsSync(path.join(dir, "verify.sh"))) return { ok: true, errors: "" };
  const result = await runVerifyScript(dir, timeoutMs);
  if (result.ok) return { ok: true, errors: "" };
  // The exit code always, and a word when the script said nothing: an empty reason tells the operator nothing.
  const how = result.code === null ? "was stopped" : `exited with ${result.code}`;
  const said = result.output.trim();
  return { ok: false, errors: said ? `./verify.sh ${how}:\n${said}` : `./verify.sh ${how} (no output)` };
}

/** The gate: verify, and on failure let the agent fix it, up to `retries` times. */
export async function verificationGate({ dir, retries, rerun }: { dir: string; retries: number; rerun: AgentRerun }) {
  let runs = 0;
  for (let attempt = 0; ; attempt++) {
    const result = await verifyWorkspace(dir);
    runs += 1;
    if (result.ok) return { ok: true as const, runs };
    if (attempt >= retries) return { ok: false as const, runs, errors: result.errors };
    await rerun(
      `The verification of your change failed (attempt ${attempt + 1} of ${retries}). Fix these errors, then stop:\n\n${result.errors}`,
      `verification fix ${attempt + 1}/${retries}`,
    );
  }
}

/**
 * Brings the task branch onto the remote's latest main. A clean rebase when it can;
 * otherwise a merge whose conflicts the agent resolves. Returns an error text or null.
 */
async function integrateMain({ dir, remote, main, rerun }: GitSettings & { rerun: AgentRerun }): Promise<string | null> {
  if ((await git(dir, ["rebase", "--quiet", `${remote}/${main}`])).ok) return null;
  await git(dir, ["rebase", "--abort"]);
  const merge = await git(dir, ["merge", "--no-edit", `${remote}/${main}`]);
  if (merge.ok) return null;
  const conflicted = (await git(dir, ["diff", "--name-only", "--diff-filter=U"])).stdout.split("\n").filter(Boolean);
  if (!conflicted.length) {
    await git(dir, ["merge", "--abort"]);
    return `merging ${remote}/${main} failed: ${(merge.stderr || merge.stdout).trim()}`;
  }
  await rerun(
    `Your branch conflicts with the latest ${main}. Resolve the merge conflicts in these files, keeping both sides' intent, remove every conflict marker, then stop:\n${conflicted.map((f) => `- ${f}`).join("\n")}`,
    "conflict resolution",
  );
  const check = await verifyWorkspace(dir);
  if (!check.ok) {
    await git(dir, ["merge", "--abort"]);
    return `the agent could not resolve the conflicts with ${main}: ${check.errors}`;
  }
  await gitOrThrow(dir, ["add", "-A"]);
  const commit = await git(dir, ["commit", "--quiet", "--no-edit"]);
  if (!commit.ok) {
    await git(dir, ["merge", "--abort"]);
    return `committing the conflict resolution failed: ${commit.stderr.trim()}`;
  }
  return null;
}

/**
 * What to say when the checkout's .git is gone (an agent removed it; null while it is
 * there). Nothing can be committed from the folder then; the worker clones the
 * repository again before its next claim (worker/workspace-layout.ts, recloneIfGone).
 */
export function checkoutGone(dir: string): string | null {
  return existsSync(path.join(dir, ".git")) ? null : `${path.join(dir, ".git")} is gone: the folder is no git checkout any more`;
}

/** pinRemote, as a failed outcome when the remote cannot be put back (null: it is the project's). */
async function checkPin(
  dir: string,
  remote: string,
  branch: string,
  pinned: RemoteUrls | undefined,
  onRepinned: ((was: string) => void) | undefined,
): Promise<GitOutcome | null> {
  if (!pinned) return null;
  const repinned = await pinRemote(dir, remote, pinned).catch((error: Error) => error);
  if (repinned instanceof RemoteRedirectError) return { kind: "failed", branch, reason: repinned.message, refused: true };
  if (repinned instanceof Error) return { kind: "failed", branch, reason: repinned.message };
  if (repinned) onRepinned?.(repinned);
  return null;
}

/** After the agent: gate, commit, push, fast-forward main (rebase-and-retry up to 3 times). */
export async function finishTaskBranch({
  dir,
  remote,
  main,
  branch,
  message,
  verifyRetries,
  rerun,
  stopped = () => false,
  pinned,
  onRepinned,
  onMainRewritten,
  base,
}: GitSettings &
  RemotePin & {
    branch: string;
    message: string;
    /** The commit of main the task started from (prepareTaskBranch): a main that no longer contains it was rewritten. */
    base?: string;
    verifyRetries: number;
    rerun: AgentRerun;
    /** True once the task must not land any more (cancelled, taken back, worker stopping). */
    stopped?: () => boolean;
  }): Promise<GitOutcome> {
  // An agent that removed .git fails its task, as one that sent the remote elsewhere does: nothing of it can land.
  const gone = checkoutGone(dir);
  if (gone)
    return { kind: "failed", branch, reason: `${gone} (removed during the task), so the task's work cannot be committed`, refused: true };
  // What the agent left in the checkout's config goes before the gate's own git commands run (a filter runs on a diff too).
  const beforeGate = await checkPin(dir, remote, branch, pinned, onRepinned);
  if (beforeGate) return beforeGate;
  const gate = await verificationGate({ dir, retries: verifyRetries, rerun });
  if (!gate.ok)
    return { kind: "failed", branch, reason: `verification failed after ${verifyRetries} fix attempt(s): ${tail(gate.errors, 4000)}` };

  // The agent's config may run a program on every file git adds (a filter): removed first, as before a push.
  const beforeCommit = await checkPin(dir, remote, branch, pinned, onRepinned);
  if (beforeCommit) return beforeCommit;
  await gitOrThrow(dir, ["add", "-A"]);
  const staged = !(await git(dir, ["diff", "--cached", "--quiet"])).ok;
  if (staged) await gitOrThrow(dir, ["commit", "--quiet", "-m", message]);
  const ahead = (await remoteHas(dir, remote, main))
    ? Number(await gitOrThrow(dir, ["rev-list", "--count", `${remote}/${main}..HEAD`]))
    : 1;
  if (!staged && ahead === 0) {
    // Nothing on it: back to main, without the empty branch.
    if ((await git(dir, ["checkout", "--quiet", main])).ok) await git(dir, ["branch", "--quiet", "-D", branch]);
    return { kind: "no_changes", branch };
  }

  let lastError = "";
  for (let attempt = 1; attempt <= MERGE_ATTEMPTS; attempt++) {
    // The agent ran (and may have run again for the gate or a conflict): the remote must still be the project's.
    const beforePush = await checkPin(dir, remote, branch, pinned, onRepinned);
    if (beforePush) return beforePush;
    const fetchedMain = await fetchMain(dir, remote, main);
    if (fetchedMain.rewritten) onMainRewritten?.(fetchedMain.rewritten);
    else if (attempt === 1 && base && (await remoteHas(dir, remote, main))) {
      // The agent's own push updates the tracking ref too: against where the task started, not the last fetch.
      if (!(await git(dir, ["merge-base", "--is-ancestor", base, `refs/remotes/${remote}/${main}`])).ok)
        onMainRewritten?.(
          `${main} on ${remote} was rewritten (a force push) while the task ran: it no longer contains ${base.slice(0, 12)}, which the task started from`,
        );
    }
    const behind =
      (await remoteHas(dir, remote, main)) && !(await git(dir, ["merge-base", "--is-ancestor", `${remote}/${main}`, "HEAD"])).ok;
    if (behind) {
      const integrated = await integrateMain({ dir, remote, main, rerun });
      if (integrated) {
        lastError = integrated;
        continue;
      }
      const recheck = await verifyWorkspace(dir);
      if (!recheck.ok)
        return {
          kind: "failed",
          branch,
          reason: `after bringing in the latest ${main}, verification failed: ${tail(recheck.errors, 4000)}`,
        };
    }
    const pushed = await git(dir, ["push", "--quiet", "--force", remote, `HEAD:refs/heads/${branch}`]);
    if (!pushed.ok) {
      lastError = `pushing ${branch} failed: ${pushed.stderr.trim()}`;
      continue;
    }
    if (stopped()) return { kind: "failed", branch, reason: "stopped before merging into main" };
    // Not forced: the remote refuses anything but a fast-forward, which is the race guard between agents.
    const merged = await git(dir, ["push", "--quiet", remote, `HEAD:refs/heads/${main}`]);
    if (merged.ok) {
      const sha = await gitOrThrow(dir, ["rev-parse", "HEAD"]);
      await git(dir, ["checkout", "--quiet", "-B", main, sha]);
      // Its commits are main's now: the branch would only pile up, here and on the remote.
      // A task that did not land keeps its branch, for an operator to look at.
      await git(dir, ["branch", "--quiet", "-D", branch]);
      const removed = await git(dir, ["push", "--quiet", remote, "--delete", branch]);
      const leftover = removed.ok ? {} : { leftover: `could not delete ${branch} on ${remote}: ${removed.stderr.trim().split("\n")[0]}` };
      return { kind: "merged", branch, sha, attempts: attempt, verifyRuns: gate.runs, ...leftover };
    }
    lastError = `fast-forwarding ${main} was rejected: ${merged.stderr.trim()}`;
  }
  return {
    kind: "failed",
    branch,
    reason: `could not merge ${branch} into ${main} after ${MERGE_ATTEMPTS} attempts: ${tail(lastError, 4000)}`,
  };
}
