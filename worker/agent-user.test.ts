// removeAgentTree (worker/agent-user.ts) runs programs on a tree the agent owned: they
// must get the agent's environment, never the worker's credentials, and must get
// through what the agent made read-only.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeAgentTree } from "./agent-user";

let root: string;
const saved = { PATH: process.env.PATH, SWARMDECK_TOKEN: process.env.SWARMDECK_TOKEN };

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-agent-user-"));
});
afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.SWARMDECK_TOKEN === undefined) delete process.env.SWARMDECK_TOKEN;
  else process.env.SWARMDECK_TOKEN = saved.SWARMDECK_TOKEN;
  rmSync(root, { recursive: true, force: true });
});

describe("removeAgentTree", () => {
  it("removes the tree, read-only folders too", async () => {
    const tree = path.join(root, "project.broken");
    mkdirSync(path.join(tree, "cache", "module"), { recursive: true });
    writeFileSync(path.join(tree, "cache", "module", "go.mod"), "module x\n");
    chmodSync(path.join(tree, "cache", "module"), 0o555);
    chmodSync(path.join(tree, "cache"), 0o555);
    expect(await removeAgentTree(tree)).toBeNull();
    expect(existsSync(tree)).toBe(false);
    expect(await removeAgentTree(tree)).toBeNull();
  });

  it("runs its programs without the worker's token in their environment", async () => {
    const bin = path.join(root, "bin");
    mkdirSync(bin);
    const seen = path.join(root, "seen-env");
    // Stand-ins for chmod and rm that record what they were given, then do nothing.
    for (const name of ["chmod", "rm"]) writeFileSync(path.join(bin, name), `#!/bin/sh\nenv >> "${seen}"\n`, { mode: 0o755 });
    process.env.PATH = `${bin}:${saved.PATH}`;
    process.env.SWARMDECK_TOKEN = "sdw_worker-secret-token";
    const tree = path.join(root, "project.broken");
    mkdirSync(tree);
    writeFileSync(path.join(tree, "left.txt"), "x\n");
    expect(await removeAgentTree(tree)).toEqual(expect.any(String));
    const env = readFileSync(seen, "utf8");
    expect(env).toContain(`PATH=${bin}:`);
    expect(env).not.toContain("sdw_worker-secret-token");
  });
});
