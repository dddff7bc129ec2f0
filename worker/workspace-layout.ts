// Where things live under WORKSPACE_DIR: the project's checkout (or an empty work
// folder) in project/, the agent's own files (identity files, start-up script,
// memory/) in home/ beside it, exported to the agent as SWARMDECK_HOME. Keeping
// them apart is what keeps the agent's identity out of the project's commits and
// leaves a project's own CLAUDE.md, TOOLS.md, start-up.sh or memory/ as they are.
import { existsSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { handOver } from "./agent-user";
import { git } from "./git";
import { isGitWorkspace } from "./git-workflow";
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
};

export const HOME_FOLDER = "home";
export const PROJECT_FOLDER = "project";

export function layoutOf(root: string): Omit<WorkspaceLayout, "git"> {
  const resolved = path.resolve(root);
  return { root: resolved, home: path.join(resolved, HOME_FOLDER), project: path.join(resolved, PROJECT_FOLDER) };
}

export class WorkspaceError extends Error {}

/**
 * Creates the layout at worker start: home/, and project/ cloned from REPO_URL when
 * it is not there yet (a restart with a kept volume reuses the clone; the task
 * branch step fetches). A WORKSPACE_DIR that is itself a checkout is refused: the
 * worker's files would land in the project's tree.
 */
export async function ensureWorkspace({ root, repoUrl, log }: { root: string; repoUrl: string; log: Logger }): Promise<WorkspaceLayout> {
  const layout = layoutOf(root);
  await mkdir(layout.root, { recursive: true });
  if (existsSync(path.join(layout.root, ".git")) || (await isGitWorkspace(layout.root).catch(() => false))) {
    throw new WorkspaceError(
      `WORKSPACE_DIR (${layout.root}) is itself a git checkout. The worker keeps the project's checkout in ${PROJECT_FOLDER}/ inside it ` +
        `and the agent's own files in ${HOME_FOLDER}/ beside it: point WORKSPACE_DIR at an empty folder and set REPO_URL to the repository.`,
    );
  }
  await mkdir(layout.home, { recursive: true });
  const present = existsSync(layout.project);
  if (repoUrl && present && !(await isGitWorkspace(layout.project).catch(() => false))) {
    if ((await readdir(layout.project)).length > 0)
      throw new WorkspaceError(`${layout.project} is not empty and not a git checkout; refusing to clone ${repoUrl} over it`);
  }
  // The agent's user (AGENT_USER) owns both folders; git runs as that user.
  await mkdir(layout.project, { recursive: true });
  await handOver([layout.home, layout.project]);
  if (repoUrl && !(await isGitWorkspace(layout.project).catch(() => false))) {
    log.info(`cloning ${repoUrl} into ${layout.project}`);
    const cloned = await git(layout.root, ["clone", "--quiet", repoUrl, PROJECT_FOLDER]);
    if (!cloned.ok) throw new WorkspaceError(`git clone ${repoUrl} failed: ${(cloned.stderr || cloned.stdout).trim()}`);
  }
  await mkdir(layout.project, { recursive: true });
  const isGit = await isGitWorkspace(layout.project).catch(() => false);
  return { ...layout, git: isGit };
}
