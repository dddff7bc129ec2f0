// Git branch staging for changes to built-in tools (reference 003): the change is
// committed on a new branch, tested, and fast-forward merged into the target branch
// on success or abandoned on failure. The branch that was checked out before is
// checked out again in every case, including a throw mid-way; a process killed
// mid-way is put right by `recoverStaging` (it leaves a marker in .git first).
// A dirty working tree is refused: staging never mixes with uncommitted work.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Mutex } from "async-mutex";
import { git, gitOrThrow } from "../../worker/git";

export type StageTest = (content: string) => Promise<{ ok: boolean; error?: string; output?: unknown }>;

export type StageResult = {
  ok: boolean;
  /** merged | abandoned | refused */
  outcome: "merged" | "abandoned" | "refused";
  branch: string | null;
  commit: string | null;
  error?: string;
  output?: unknown;
};

const MARKER = "swarmdeck-staging.json";
const locks = new Map<string, Mutex>();

function lockFor(repoDir: string): Mutex {
  let lock = locks.get(repoDir);
  if (!lock) {
    lock = new Mutex();
    locks.set(repoDir, lock);
  }
  return lock;
}

const markerPath = (repoDir: string) => path.join(repoDir, ".git", MARKER);

/** Puts a repository left mid-staging (a killed process) back on its original branch. Returns what it did. */
export async function recoverStaging(repoDir: string): Promise<{ restored: string; abandoned: string } | null> {
  let marker: { original: string; staging: string };
  try {
    marker = JSON.parse(await readFile(markerPath(repoDir), "utf8"));
  } catch {
    return null;
  }
  await git(repoDir, ["reset", "--hard"]);
  await gitOrThrow(repoDir, ["checkout", "-f", marker.original]);
  await git(repoDir, ["branch", "-D", marker.staging]);
  await rm(markerPath(repoDir), { force: true });
  return { restored: marker.original, abandoned: marker.staging };
}

export async function stageChange({
  repoDir,
  target,
  base = "main",
  stagingBranch,
  filePath,
  content,
  message,
  test,
}: {
  repoDir: string;
  /** The branch the change lands on (created from `base` when missing). */
  target: string;
  base?: string;
  stagingBranch: string;
  /** Inside the repository; callers build it from validated names, never from a request. */
  filePath: string;
  content: string;
  message: string;
  test: StageTest;
}): Promise<StageResult> {
  return lockFor(repoDir).runExclusive(async () => {
    await recoverStaging(repoDir);
    const status = await gitOrThrow(repoDir, ["status", "--porcelain"]);
    if (status) {
      return { ok: false, outcome: "refused", branch: null, commit: null, error: `the working tree has uncommitted changes:\n${status}` };
    }
    const original = await gitOrThrow(repoDir, ["rev-parse", "--abbrev-ref", "HEAD"]);
    const targetExists = (await git(repoDir, ["rev-parse", "--verify", "--quiet", `refs/heads/${target}`])).ok;
    if (!targetExists) await gitOrThrow(repoDir, ["branch", target, base]);
    await writeFile(markerPath(repoDir), JSON.stringify({ original, staging: stagingBranch }));
    let commit: string | null = null;
    try {
      await gitOrThrow(repoDir, ["checkout", "-b", stagingBranch, target]);
      const file = path.join(repoDir, filePath);
      if (path.relative(repoDir, file).startsWith("..")) throw new Error(`${filePath} is outside the repository`);
      await writeFile(file, content);
      await gitOrThrow(repoDir, ["add", "--", filePath]);
      await gitOrThrow(repoDir, ["commit", "-m", message]);
      commit = await gitOrThrow(repoDir, ["rev-parse", "HEAD"]);
      const tested = await test(content);
      await gitOrThrow(repoDir, ["checkout", target]);
      if (tested.ok) {
        await gitOrThrow(repoDir, ["merge", "--ff-only", stagingBranch]);
        await gitOrThrow(repoDir, ["branch", "-d", stagingBranch]);
      } else {
        await gitOrThrow(repoDir, ["branch", "-D", stagingBranch]);
      }
      await gitOrThrow(repoDir, ["checkout", original]);
      await rm(markerPath(repoDir), { force: true });
      return tested.ok
        ? { ok: true, outcome: "merged", branch: stagingBranch, commit, output: tested.output }
        : { ok: false, outcome: "abandoned", branch: stagingBranch, commit, error: tested.error, output: tested.output };
    } catch (error) {
      await recoverStaging(repoDir);
      return { ok: false, outcome: "abandoned", branch: stagingBranch, commit, error: (error as Error).message };
    }
  });
}
