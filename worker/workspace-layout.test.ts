// The layout under WORKSPACE_DIR (worker/README.md, "The workspace"), on real git
// repositories: the agent's files never inside a checkout, and a kept clone only
// ever worked for the repository REPO_URL names.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setAgentUser } from "./agent-user";
import { createLogger } from "./log";
import { ensureWorkspace } from "./workspace-layout";

let root: string;
const log = createLogger(() => {});
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

/** A bare repository with one commit on main. */
function repository(name: string): string {
  const bare = path.join(root, `${name}.git`);
  sh(root, "init", "--quiet", "--bare", "--initial-branch=main", bare);
  const seed = path.join(root, `${name}-seed`);
  sh(root, "clone", "--quiet", bare, seed);
  writeFileSync(path.join(seed, "app.txt"), `${name}\n`);
  sh(seed, "add", ".");
  sh(seed, "commit", "--quiet", "-m", "initial");
  sh(seed, "push", "--quiet", "origin", "HEAD:main");
  return bare;
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-layout-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("ensureWorkspace", () => {
  it("clones REPO_URL into project/ with home/ beside it, and reuses the clone on a restart", async () => {
    const origin = repository("shop");
    const ws = path.join(root, "ws");
    const first = await ensureWorkspace({ root: ws, repoUrl: origin, log });
    expect(first).toMatchObject({ project: path.join(ws, "project"), home: path.join(ws, "home"), git: true });
    expect(readdirSync(first.project)).toContain("app.txt");
    writeFileSync(path.join(first.project, "work-in-progress.txt"), "kept\n");
    const again = await ensureWorkspace({ root: ws, repoUrl: origin, log });
    expect(again.git).toBe(true);
    expect(existsSync(path.join(again.project, "work-in-progress.txt"))).toBe(true);
  });

  it("refuses a WORKSPACE_DIR that is a checkout, or inside one, creating nothing there", async () => {
    const origin = repository("shop");
    const checkout = path.join(root, "checkout");
    sh(root, "clone", "--quiet", origin, checkout);
    await expect(ensureWorkspace({ root: checkout, repoUrl: origin, log })).rejects.toThrow(/is itself a git checkout/);
    const inside = path.join(checkout, "src", "ws");
    mkdirSync(path.dirname(inside), { recursive: true });
    await expect(ensureWorkspace({ root: inside, repoUrl: origin, log })).rejects.toThrow(
      new RegExp(`is inside the git checkout ${checkout.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    // The project's status is as it was: no home/, no project/, no agent files, not even the folder.
    expect(sh(checkout, "status", "--porcelain")).toBe("");
    expect(existsSync(inside)).toBe(false);
  });

  it("refuses it just the same when git runs as the agent's user (AGENT_USER), who does not own the checkout", async () => {
    // git run as another user than the checkout's owner will not look at it ("dubious
    // ownership"); the Docker image runs every git command so, as AGENT_USER.
    const origin = repository("shop");
    const checkout = path.join(root, "checkout");
    sh(root, "clone", "--quiet", origin, checkout);
    const inside = path.join(checkout, "ws");
    setAgentUser({ uid: 47126, gid: 47126, home: null, label: "agent (uid 47126)" }, inside);
    try {
      await expect(ensureWorkspace({ root: inside, repoUrl: origin, log })).rejects.toThrow(/is inside the git checkout/);
      await expect(ensureWorkspace({ root: checkout, repoUrl: origin, log })).rejects.toThrow(/is itself a git checkout/);
    } finally {
      setAgentUser(null, inside);
    }
    expect(existsSync(inside)).toBe(false);
    expect(sh(checkout, "status", "--porcelain", "--ignored")).toBe("");
  });

  it("refuses a WORKSPACE_DIR it cannot make its folders in (a file, a folder under a file), saying what to do", async () => {
    const file = path.join(root, "not-a-folder");
    writeFileSync(file, "x");
    for (const dir of [file, path.join(file, "ws")]) {
      await expect(ensureWorkspace({ root: dir, repoUrl: "", log })).rejects.toThrow(
        `WORKSPACE_DIR (${dir}) cannot be used: it, a folder above it or home/ in it is a file. Point WORKSPACE_DIR at a folder the worker can write`,
      );
    }
    expect(readFileSync(file, "utf8")).toBe("x");
  });

  it("refuses a kept clone of another repository than REPO_URL, naming both", async () => {
    const first = repository("shop");
    const second = repository("billing");
    const ws = path.join(root, "ws");
    await ensureWorkspace({ root: ws, repoUrl: first, log });
    await expect(ensureWorkspace({ root: ws, repoUrl: second, log })).rejects.toThrow(
      `${path.join(ws, "project")} is a clone of ${first}, but REPO_URL is ${second}`,
    );
    // The same repository written another way (a trailing slash) is the same repository.
    expect((await ensureWorkspace({ root: ws, repoUrl: `${first}/`, log })).git).toBe(true);
  });

  it("refuses a kept clone that pushes to another repository (a pushurl left in its .git/config), naming both", async () => {
    const shop = repository("shop");
    const decoy = repository("decoy");
    const ws = path.join(root, "ws");
    await ensureWorkspace({ root: ws, repoUrl: shop, log });
    sh(path.join(ws, "project"), "config", "remote.origin.pushurl", decoy);
    await expect(ensureWorkspace({ root: ws, repoUrl: shop, log })).rejects.toThrow(
      `${path.join(ws, "project")} pushes to ${decoy}, but REPO_URL is ${shop}`,
    );
  });

  it("with another GIT_REMOTE: clones under that name and checks that remote, not a remote named origin", async () => {
    const shop = repository("shop");
    const decoy = repository("decoy");
    const ws = path.join(root, "ws");
    const layout = await ensureWorkspace({ root: ws, repoUrl: shop, remote: "upstream", log });
    const project = path.join(ws, "project");
    expect(sh(project, "remote").trim()).toBe("upstream");
    expect(layout.remoteUrls?.push).toBe(shop);
    // A remote named origin elsewhere is the checkout's own business; the worker's remote must be REPO_URL.
    sh(project, "remote", "add", "origin", decoy);
    expect((await ensureWorkspace({ root: ws, repoUrl: shop, remote: "upstream", log })).git).toBe(true);
    sh(project, "config", "remote.upstream.pushurl", decoy);
    await expect(ensureWorkspace({ root: ws, repoUrl: shop, remote: "upstream", log })).rejects.toThrow(
      `${project} pushes to ${decoy}, but REPO_URL is ${shop}`,
    );
    sh(project, "config", "--unset", "remote.upstream.pushurl");
    await expect(ensureWorkspace({ root: ws, repoUrl: shop, remote: "fork", log })).rejects.toThrow(
      `${project} is a git checkout without the remote fork (GIT_REMOTE)`,
    );
  });

  it("starts on a kept clone whose .git/config an agent redirected (an insteadOf rule, an include), removing both and saying so", async () => {
    const shop = repository("shop");
    const decoy = repository("decoy");
    const ws = path.join(root, "ws");
    await ensureWorkspace({ root: ws, repoUrl: shop, log });
    const project = path.join(ws, "project");
    const planted = path.join(root, "planted.gitconfig");
    writeFileSync(planted, `[url "${decoy}"]\n\tpushInsteadOf = ${shop}\n`);
    sh(project, "config", `url.${decoy}.insteadOf`, shop);
    sh(project, "config", "include.path", planted);
    const lines: string[] = [];
    const layout = await ensureWorkspace({ root: ws, repoUrl: shop, log: createLogger((line) => lines.push(line)) });
    expect(layout.remoteUrls).toEqual({ fetch: shop, push: shop });
    expect(lines.join("\n")).toContain(
      `removed what redirected origin or ran a program on its way: url.${decoy}.insteadof=${shop}, include.path=${planted}`,
    );
  });
});
