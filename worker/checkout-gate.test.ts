// The check before each claim (worker/checkout-gate.ts) on a real clone: after a task's
// checkout failed though the fetch worked, nothing is claimed until main can be
// checked out again (each give-back would use one of a task's attempts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckoutGate } from "./checkout-gate";
import { createLogger } from "./log";

let root: string;
let dir: string;
let logged = "";
const log = createLogger((text) => {
  logged += text;
});

beforeEach(() => {
  logged = "";
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-gate-"));
  const origin = path.join(root, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
  dir = path.join(root, "project");
  execFileSync("git", ["clone", "--quiet", origin, dir], { stdio: "ignore" });
  writeFileSync(path.join(dir, "app.txt"), "v1\n");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=s", "-c", "user.email=s@t", ...args], { cwd: dir });
  git("add", ".");
  git("commit", "--quiet", "-m", "initial");
  git("push", "--quiet", "origin", "HEAD:main");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the check before a claim", () => {
  it("claims nothing after a failed checkout until main can be checked out, says so once, and again when it works", async () => {
    const gate = new CheckoutGate({ dir, remote: "origin", main: "main", log });
    expect(await gate.ready()).toBe(true);
    // Something the worker cannot put right: its index replaced by a folder with a file in it.
    rmSync(path.join(dir, ".git", "index"));
    mkdirSync(path.join(dir, ".git", "index"));
    writeFileSync(path.join(dir, ".git", "index", "x"), "");
    gate.markBroken("task t1");
    expect(await gate.ready()).toBe(false);
    expect(await gate.ready()).toBe(false);
    expect(logged.match(/the checkout fails: claiming no tasks until it works again/g)).toHaveLength(1);
    rmSync(path.join(dir, ".git", "index"), { recursive: true });
    expect(await gate.ready()).toBe(true);
    expect(logged).toContain("the checkout works again: claiming tasks");
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" })).toBe("");
  });
});
