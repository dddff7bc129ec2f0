import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Bundle } from "../lib/contracts/tasks";
import { SETUP_MARKER_START } from "../lib/setup-script/compose";
import { fakeTask } from "./test-support/fake-app";
import { prepareWorkspace } from "./workspace";

let root: string;
let ws: string;
let taskDir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-prep-"));
  ws = path.join(root, "ws");
  taskDir = path.join(root, "task");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function bundle(files: Bundle["files"], agent = "", global = ""): Bundle {
  return {
    task: fakeTask("t1"),
    files,
    setupScript: { global, agent, composed: "" },
    systemPrompt: "sys",
    taskPrompt: "do it",
    memories: [],
  };
}

describe("prepareWorkspace", () => {
  it("writes identity files under the contract's names only, whatever path the bundle gives", async () => {
    const prepared = await prepareWorkspace({
      workspaceDir: ws,
      taskDir,
      bundle: bundle([
        { kind: "SOUL", path: "../../etc/evil", content: "soul", versionId: "v1" },
        { kind: "NOT_A_KIND", path: "x.md", content: "x", versionId: "v2" },
      ]),
    });
    expect(readFileSync(path.join(ws, "SOUL.md"), "utf8")).toBe("soul");
    expect(existsSync(path.join(root, "etc"))).toBe(false);
    expect(existsSync(path.join(ws, "x.md"))).toBe(false);
    expect([...prepared.files.keys()]).toEqual(["SOUL"]);
    expect(readFileSync(prepared.promptFile, "utf8")).toBe("do it");
    expect(readFileSync(prepared.systemPromptFile, "utf8")).toBe("sys");
    expect(path.dirname(prepared.promptFile)).toBe(taskDir);
  });

  it("removes identity files the app no longer has (a retired BOOTSTRAP.md)", async () => {
    await prepareWorkspace({
      workspaceDir: ws,
      taskDir,
      bundle: bundle([{ kind: "BOOTSTRAP", path: "BOOTSTRAP.md", content: "b", versionId: "v1" }]),
    });
    expect(existsSync(path.join(ws, "BOOTSTRAP.md"))).toBe(true);
    await prepareWorkspace({ workspaceDir: ws, taskDir, bundle: bundle([]) });
    expect(existsSync(path.join(ws, "BOOTSTRAP.md"))).toBe(false);
  });

  it("creates an executable start-up.sh and reads back the agent's part exactly as stored (no spurious sync)", async () => {
    const prepared = await prepareWorkspace({
      workspaceDir: ws,
      taskDir,
      bundle: bundle(
        [{ kind: "SETUP_SCRIPT", path: "start-up.sh", content: "#!/bin/bash\npip install x", versionId: "s1" }],
        "#!/bin/bash\npip install x",
        "apt-get install -y jq",
      ),
    });
    const file = path.join(ws, "start-up.sh");
    expect(readFileSync(file, "utf8")).toContain(SETUP_MARKER_START);
    expect(statSync(file).mode & 0o111).not.toBe(0);
    expect(prepared.setupScript).toMatchObject({ versionId: "s1", synced: "pip install x" });
  });

  it("uses an existing start-up file and keeps its content", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(ws, { recursive: true });
    writeFileSync(path.join(ws, "start-up"), "echo mine\n");
    const prepared = await prepareWorkspace({ workspaceDir: ws, taskDir, bundle: bundle([], "echo agent") });
    expect(prepared.startupFile).toBe("start-up");
    expect(existsSync(path.join(ws, "start-up.sh"))).toBe(false);
    expect(readFileSync(path.join(ws, "start-up"), "utf8")).toMatch(/echo agent\n# === End agent-managed setup ===\necho mine/);
  });
});
