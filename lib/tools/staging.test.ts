// Reference 003's staging tests on a real git repository: success merges
// (fast-forward), failure abandons, a crash restores the original branch (a throw
// mid-way, and a process killed mid-way), a dirty tree is refused.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recoverStaging, stageChange } from "./staging";

const git = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();

function repo() {
  const dir = mkdtempSync(path.join(tmpdir(), "staging-"));
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.email", "swarmdeck@localhost");
  git(dir, "config", "user.name", "Swarmdeck");
  writeFileSync(path.join(dir, "memory_search.ts"), "export const version = 1;\n");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "built-ins");
  return dir;
}

const change = (dir: string, test: Parameters<typeof stageChange>[0]["test"], stagingBranch = "staging/ada/memory_search-1") =>
  stageChange({
    repoDir: dir,
    target: "agents/ada",
    stagingBranch,
    filePath: "memory_search.ts",
    content: "export const version = 2;\n",
    message: "ada: memory_search v2",
    test,
  });

const branches = (dir: string) => git(dir, "branch", "--format=%(refname:short)").split("\n").sort();

describe("built-in staging", () => {
  it("success: committed on a branch, tested, fast-forward merged into the agent's branch; main untouched", async () => {
    const dir = repo();
    const mainBefore = git(dir, "rev-parse", "main");
    const result = await change(dir, async (content) => ({ ok: content.includes("2"), output: "passed" }));
    expect(result).toMatchObject({ ok: true, outcome: "merged", branch: "staging/ada/memory_search-1", output: "passed" });
    expect(git(dir, "rev-parse", "agents/ada")).toBe(result.commit);
    expect(git(dir, "log", "-1", "--format=%s", "agents/ada")).toBe("ada: memory_search v2");
    expect(git(dir, "rev-parse", "agents/ada~1")).toBe(mainBefore);
    expect(git(dir, "rev-parse", "main")).toBe(mainBefore);
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(branches(dir)).toEqual(["agents/ada", "main"]);
    expect(readFileSync(path.join(dir, "memory_search.ts"), "utf8")).toBe("export const version = 1;\n");
  });

  it("failure: the branch is abandoned, nothing merged, the original branch back", async () => {
    const dir = repo();
    const result = await change(dir, async () => ({ ok: false, error: "threw: boom", output: "log line" }));
    expect(result).toMatchObject({ ok: false, outcome: "abandoned", error: "threw: boom", commit: expect.any(String) });
    expect(git(dir, "rev-parse", "agents/ada")).toBe(git(dir, "rev-parse", "main"));
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(branches(dir)).toEqual(["agents/ada", "main"]);
    expect(git(dir, "status", "--porcelain")).toBe("");
  });

  it("crash mid-way (the test throws): the original branch is restored and the staging branch gone", async () => {
    const dir = repo();
    const result = await change(dir, async () => {
      throw new Error("sandbox vanished");
    });
    expect(result).toMatchObject({ ok: false, outcome: "abandoned", error: "sandbox vanished" });
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(branches(dir)).toEqual(["agents/ada", "main"]);
  });

  it("crash of the process mid-way: the next staging (or recoverStaging) restores the original branch first", async () => {
    const dir = repo();
    // What a killed process leaves: the marker, the staging branch checked out, a half-written file.
    writeFileSync(path.join(dir, ".git", "swarmdeck-staging.json"), JSON.stringify({ original: "main", staging: "staging/ada/x-0" }));
    git(dir, "checkout", "-q", "-b", "staging/ada/x-0");
    writeFileSync(path.join(dir, "memory_search.ts"), "half writ");
    expect(await recoverStaging(dir)).toEqual({ restored: "main", abandoned: "staging/ada/x-0" });
    expect(git(dir, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(branches(dir)).toEqual(["main"]);
    expect(git(dir, "status", "--porcelain")).toBe("");
    expect(await recoverStaging(dir)).toBeNull();
  });

  it("a dirty tree is refused and left exactly as it was", async () => {
    const dir = repo();
    writeFileSync(path.join(dir, "memory_search.ts"), "someone's unsaved work\n");
    let tested = false;
    const result = await change(dir, async () => {
      tested = true;
      return { ok: true };
    });
    expect(result).toMatchObject({ ok: false, outcome: "refused", error: expect.stringContaining("uncommitted changes") });
    expect(tested).toBe(false);
    expect(readFileSync(path.join(dir, "memory_search.ts"), "utf8")).toBe("someone's unsaved work\n");
    expect(branches(dir)).toEqual(["main"]);
  });
});
