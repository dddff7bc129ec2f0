// Where things live under WORKSPACE_DIR: the project's checkout (or an empty work
// folder) in project/, the agent's own files (identity files, start-up script,
// memory/) in home/ beside it, exported to the agent as SWARMDECK_HOME. Keeping
// them apart is what keeps the agent's identity out of the project's commits and
// leaves a project's own CLAUDE.md, TOOLS.md, start-up.sh or memory/ as they are.
import { constants, existsSync, realpathSync } from "node:fs";
import { access, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { handOver, removeAgentTree } from "./agent-user";
import { git } from "./git";
import { removeRedirects } from "./git-config-guard";
import { checkoutGone, isGitWorkspace, type RemoteUrls, remoteUrls, writtenAddresses } from "./git-workflow";
import type { Logger } from "./log";

export type WorkspaceLayout = {
  /** WORKSPACE_DIR. */
  root: string;
  /** SWARMDECK_HOME: the agent's own files. Never inside the checkout. */
  home: string;
  /** The agent's working directory: the project checkout, or an empty work folder. */
  project: string;
  /** True when project/ is a git checkout (the git workflow runs). */
  git: boolean;
  /** The remote's addresses at the worker's start, before any agent ran (worker/git-workflow.ts pinRemote). */
  remoteUrls?: RemoteUrls;
};

export const HOME_FOLDER = "home";
export const PROJECT_FOLDER = "project";
/** Where what was left of the worker's clone is kept when its .git went (the last one only). */
export const BROKEN_PROJECT_FOLDER = "project.broken";
/**
 * Beside project/: the REPO_URL project/ is the worker's checkout of ("" for one put
 * there by hand), and that folder's inode, so a project/ whose .git went is known to
 * be that very folder, not one put there since.
 */
const CLONE_RECORD = "project.cloned";

async function clonedHere(root: string, project: string, repoUrl: string): Promise<boolean> {
  try {
    const recorded = JSON.parse(await readFile(path.join(root, CLONE_RECORD), "utf8")) as { repoUrl?: unknown; ino?: unknown };
    // The inode, not the device too: a volume mounted again may come back under another device number.
    const { ino } = await lstat(project);
    return recorded.repoUrl === repoUrl && recorded.ino === ino;
  } catch {
    return false;
  }
}

export function layoutOf(root: string): Omit<WorkspaceLayout, "git"> {
  const resolved = path.resolve(root);
  return { root: resolved, home: path.join(resolved, HOME_FOLDER), project: path.join(resolved, PROJECT_FOLDER) };
}

export class WorkspaceError extends Error {
  /** A retry cannot help (the operator has to act): the worker stops (exit 2). */
  readonly fatal: boolean;
  constructor(message: string, { fatal = false } = {}) {
    super(message);
    this.fatal = fatal;
  }
}

/**
 * The git work tree `dir` is, or would be, in (its top level), if any: the nearest
 * folder from `dir` up, links resolved, that holds a `.git` (a folder, or the file a
 * linked worktree or a submodule has). Read from the file system, not asked of git:
 * git runs as AGENT_USER (git.ts) and refuses to look at a checkout another user owns
 * ("dubious ownership"), which would read as no checkout at all. `dir` need not exist
 * yet, so nothing is created before the check.
 */
export function enclosingWorkTree(dir: string): string | null {
  let existing = path.resolve(dir);
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  let current = realpathSync(existing);
  for (;;) {
    if (existsSync(path.join(current, ".git"))) return current;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** A repository address as git clone reads it: a URL or scp-like address as is, a path from `root`. */
function sameRepository(a: string, b: string, root: string): boolean {
  const address = (url: string) => (/^[a-z][a-z0-9+.-]*:\/\/|^[^/]+@[^/]+:/i.test(url) ? url : path.resolve(root, url));
  return address(a).replace(/\/+$/, "") === address(b).replace(/\/+$/, "");
}

/**
 * Creates the layout at worker start: home/, and project/ cloned from REPO_URL when
 * it is not there yet (a restart with a kept volume reuses the clone; the task
 * branch step fetches). A WORKSPACE_DIR that is a checkout, or inside one, is
 * refused: the worker's files would land in the project's tree. So is a kept
 * clone of another repository than REPO_URL: its tasks would land there.
 */
export async function ensureWorkspace({
  root,
  repoUrl,
  remote = "origin",
  main = "main",
  log,
}: {
  root: string;
  repoUrl: string;
  /** GIT_REMOTE: whose addresses the git workflow keeps. */
  remote?: string;
  /** GIT_MAIN_BRANCH: what every task starts from and merges into. */
  main?: string;
  log: Logger;
}): Promise<WorkspaceLayout> {
  const layout = layoutOf(root);
  const enclosing = enclosingWorkTree(layout.root);
  if (enclosing) {
    const itself = existsSync(layout.root) && enclosing === realpathSync(layout.root);
    const where = itself ? "is itself a git checkout" : `is inside the git checkout ${enclosing}`;
    throw new WorkspaceError(
      `WORKSPACE_DIR (${layout.root}) ${where}, so the agent's own files would show in the project's tree. The worker keeps the ` +
        `project's checkout in ${PROJECT_FOLDER}/ inside it and the agent's own files in ${HOME_FOLDER}/ beside it: point WORKSPACE_DIR ` +
        "at an empty folder outside any checkout and set REPO_URL to the repository.",
    );
  }
  try {
    await mkdir(layout.home, { recursive: true });
    await access(layout.root, constants.W_OK);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why =
      code === "ENOTDIR" || code === "EEXIST"
        ? `it, a folder above it or ${HOME_FOLDER}/ in it is a file`
        : code === "EACCES" || code === "EPERM"
          ? "the worker may not write there"
          : code === "EROFS"
            ? "it is on a read-only file system"
            : message;
    throw new WorkspaceError(
      `WORKSPACE_DIR (${layout.root}) cannot be used: ${why}. Point WORKSPACE_DIR at a folder the worker can write (it keeps ${HOME_FOLDER}/ and ${PROJECT_FOLDER}/ there).`,
    );
  }
  const present = existsSync(layout.project);
  // A checkout put in project/ by hand (no REPO_URL) whose .git an agent removed: not a plain folder now.
  if (!repoUrl && present && checkoutGone(layout.project) && (await clonedHere(layout.root, layout.project, repoUrl)))
    throw new WorkspaceError(goneWithoutRepo(layout));
  if (repoUrl && present && !(await isGitWorkspace(layout.project).catch(() => false))) {
    if ((await readdir(layout.project)).length > 0) {
      // Only the worker's own clone whose .git is gone altogether: a .git that git cannot
      // read (another owner, a broken config) may hold work, and is the operator's to fix.
      if (!checkoutGone(layout.project)) {
        const said = (await git(layout.project, ["rev-parse", "--show-toplevel"])).stderr.trim().split("\n")[0];
        throw new WorkspaceError(
          `${layout.project}/.git is there, but git cannot use it as a checkout${said ? ` (${said})` : ""}; refusing to clone ${repoUrl} over it. ` +
            `Fix it (its owner should be AGENT_USER's), or move ${layout.project} away (after keeping anything of value) to clone ${repoUrl} there again`,
        );
      }
      if (!(await clonedHere(layout.root, layout.project, repoUrl)))
        throw new WorkspaceError(
          `${layout.project} is not empty and not a git checkout; refusing to clone ${repoUrl} over it. Move it away (after keeping anything of value) to clone ${repoUrl} there again`,
        );
      // Kept aside (one copy), and cloned again below.
      const broken = path.join(layout.root, BROKEN_PROJECT_FOLDER);
      const stuck = await removeAgentTree(broken);
      if (stuck)
        throw new WorkspaceError(
          `${layout.project}/.git is gone, and the copy kept from the last time (${broken}) cannot be removed to keep this one (${stuck}): remove ${broken} to have ${repoUrl} cloned again`,
        );
      await rename(layout.project, broken);
      log.warn(
        `${layout.project} is no git checkout any more (its .git is gone: removed during a task or an idle run); what was left in it is kept in ${broken}, and ${repoUrl} is cloned there again`,
      );
    }
  }
  // The agent's user (AGENT_USER) owns both folders; git runs as that user.
  await mkdir(layout.project, { recursive: true });
  await handOver([layout.home, layout.project]);
  if (repoUrl && !(await isGitWorkspace(layout.project).catch(() => false))) {
    log.info(`cloning ${repoUrl} into ${layout.project}`);
    // The clone's remote is GIT_REMOTE's name: the git workflow fetches and pushes through it.
    const cloned = await git(layout.root, ["clone", "--quiet", "--origin", remote, "--", repoUrl, PROJECT_FOLDER]);
    if (!cloned.ok) throw new WorkspaceError(`git clone ${repoUrl} failed: ${(cloned.stderr || cloned.stdout).trim()}`);
  }
  await mkdir(layout.project, { recursive: true });
  const isGit = await isGitWorkspace(layout.project).catch(() => false);
  if (repoUrl && isGit) {
    // A kept clone: an agent of an earlier run may have left an include or an insteadOf rule that redirects the remote.
    const addresses = [repoUrl, path.resolve(layout.root, repoUrl), ...(await writtenAddresses(layout.project, remote))];
    const removed = await removeRedirects(layout.project, remote, addresses);
    if (removed.length)
      log.warn(`${layout.project}/.git/config: removed what redirected ${remote} or ran a program on its way: ${removed.join(", ")}`);
    const fetchUrl = await git(layout.project, ["remote", "get-url", remote]);
    const cloned = fetchUrl.stdout.trim();
    if (!fetchUrl.ok) {
      throw new WorkspaceError(
        `${layout.project} is a git checkout without the remote ${remote} (GIT_REMOTE); refusing to guess where REPO_URL ${repoUrl} is. ` +
          `Add it (git -C ${layout.project} remote add ${remote} ${repoUrl}), set GIT_REMOTE to the checkout's remote, or move ${layout.project} away to clone ${repoUrl}.`,
      );
    }
    if (!sameRepository(cloned, repoUrl, layout.root)) {
      throw new WorkspaceError(
        `${layout.project} is a clone of ${cloned}, but REPO_URL is ${repoUrl}; refusing to work one repository's tasks into another. ` +
          `Set REPO_URL back, or move ${layout.project} away (after pushing anything of value) to clone ${repoUrl}.`,
      );
    }
  }
  const urls = isGit ? await remoteUrls(layout.project, remote) : null;
  // Where the work is pushed counts as much (a pushurl an agent left in .git/config of a kept clone).
  if (repoUrl && urls && !sameRepository(urls.push, repoUrl, layout.root)) {
    throw new WorkspaceError(
      `${layout.project} pushes to ${urls.push}, but REPO_URL is ${repoUrl}; refusing to work one repository's tasks into another. ` +
        `Remove remote.${remote}.pushurl from ${layout.project}/.git/config, or move ${layout.project} away to clone ${repoUrl}.`,
    );
  }
  if (repoUrl && isGit) await requireMainBranch(layout.project, remote, main, repoUrl);
  if (isGit) {
    const { ino } = await lstat(layout.project);
    await writeFile(path.join(layout.root, CLONE_RECORD), `${JSON.stringify({ repoUrl, ino })}\n`);
  }
  return { ...layout, git: isGit, ...(urls ? { remoteUrls: urls } : {}) };
}

/**
 * Every task starts from main and merges into it: a repository without that branch
 * (its main is `master`, or it is empty) would have every claimed task given back, each
 * using an attempt. Unreachable now, it is left to the fetch before each claim.
 */
async function requireMainBranch(project: string, remote: string, main: string, repoUrl: string): Promise<void> {
  const listed = await git(project, ["ls-remote", "--heads", "--", remote]);
  if (!listed.ok) return;
  const branches = listed.stdout
    .split("\n")
    .map((line) => line.split("\t")[1]?.replace(/^refs\/heads\//, ""))
    .filter((name): name is string => Boolean(name));
  if (branches.includes(main)) return;
  if (branches.length === 0)
    throw new WorkspaceError(
      `${repoUrl} has no branches yet: push a first commit to ${main} (GIT_MAIN_BRANCH), which every task starts from`,
    );
  const shown = branches.slice(0, 5).join(", ") + (branches.length > 5 ? ", ..." : "");
  throw new WorkspaceError(
    `${repoUrl} has no branch ${main} (GIT_MAIN_BRANCH; its branches: ${shown}): set GIT_MAIN_BRANCH to the branch tasks start from and merge into`,
  );
}

function goneWithoutRepo(layout: Omit<WorkspaceLayout, "git">): string {
  return (
    `${layout.project}/.git is gone (removed during a task or an idle run), and without REPO_URL there is nothing to clone it again from: ` +
    `put the checkout back, or set REPO_URL (or remove ${path.join(layout.root, CLONE_RECORD)} to have the agent work in the folder as it is, without git)`
  );
}

/**
 * Clones the project again before a claim when its .git is gone: an agent removed it
 * (its task failed saying so, worker/git-workflow.ts finishTaskBranch), and without it
 * every later claim would find no checkout. ensureWorkspace keeps what was left and
 * clones; the caller runs the setup script again, since what it set up went too.
 * False when the checkout is there; throws a WorkspaceError when the clone fails (the
 * next call tries again).
 */
export async function recloneIfGone(
  layout: WorkspaceLayout,
  settings: { repoUrl: string; remote?: string; main?: string; log: Logger },
): Promise<boolean> {
  if (!layout.git || !checkoutGone(layout.project)) return false;
  if (!settings.repoUrl) throw new WorkspaceError(goneWithoutRepo(layout), { fatal: true });
  const again = await ensureWorkspace({ root: layout.root, ...settings });
  if (!again.git) throw new WorkspaceError(`${layout.project} could not be cloned again from ${settings.repoUrl}`);
  return true;
}

/**
 * Makes the home a folder of its own again before a claim. An agent that runs as the
 * worker's user can swap it for a symlink (or a file); the worker refuses to write
 * through one (worker/workspace.ts), so every task it claimed would then be given
 * back at once, using an attempt each: the queue burnt. A new empty folder is made
 * instead (its files come from the app with the next task), and the symlink's target
 * is left as it is.
 */
export async function reclaimHome(layout: WorkspaceLayout, log: Logger): Promise<void> {
  const found = await lstat(layout.home).catch(() => null);
  if (found?.isDirectory()) return;
  const what = !found ? "gone" : found.isSymbolicLink() ? "a symlink" : "not a folder";
  log.warn(`${layout.home} (SWARMDECK_HOME) was ${what}: made a new folder there; its files come from the app with the next task`);
  if (found) await rm(layout.home, { force: true });
  await mkdir(layout.home, { recursive: true });
  await handOver([layout.home]);
}
