import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Bundle } from "../lib/contracts/tasks";
import { SETUP_MARKER_START } from "../lib/setup-script/compose";
import { taskDto } from "./test-support/task-dto";
import { prepareWorkspace, readHomeFile, writeStartupFile } from "./workspace";

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
    task: taskDto("t1"),
    files,
    setupScript: { global, agent, composed: "" },
    systemPrompt: "sys",
    taskPrompt: "do it",
    memories: [],
    decisions: [],
  };
}

describe("prepareWorkspace", () => {
  it("writes identity files under the contract's names only, whatever path the bundle gives", async () => {
    const prepared = await prepareWorkspace({
      homeDir: ws,
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

  it("gives the agent memory/ and memory/shared/ in its home, so a note written there at once becomes a memory", async () => {
    await prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([]) });
    expect(statSync(path.join(ws, "memory", "shared")).isDirectory()).toBe(true);
    writeFileSync(path.join(ws, "memory", "lesson.md"), "kept");
    await prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([]) });
    expect(readFileSync(path.join(ws, "memory", "lesson.md"), "utf8")).toBe("kept");
  });

  it("makes no folder through a symlink the agent left at memory/", async () => {
    const outside = path.join(root, "elsewhere");
    mkdirSync(outside);
    mkdirSync(ws);
    symlinkSync(outside, path.join(ws, "memory"));
    await prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([]) });
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(path.join(ws, "memory")).isSymbolicLink()).toBe(true);
  });

  it("removes identity files the app no longer has (a retired BOOTSTRAP.md)", async () => {
    await prepareWorkspace({
      homeDir: ws,
      taskDir,
      bundle: bundle([{ kind: "BOOTSTRAP", path: "BOOTSTRAP.md", content: "b", versionId: "v1" }]),
    });
    expect(existsSync(path.join(ws, "BOOTSTRAP.md"))).toBe(true);
    await prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([]) });
    expect(existsSync(path.join(ws, "BOOTSTRAP.md"))).toBe(false);
  });

  it("creates an executable start-up.sh and reads back the agent's part exactly as stored (no spurious sync)", async () => {
    const prepared = await prepareWorkspace({
      homeDir: ws,
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
    const prepared = await prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([], "echo agent") });
    expect(prepared.startupFile).toBe("start-up");
    expect(existsSync(path.join(ws, "start-up.sh"))).toBe(false);
    expect(readFileSync(path.join(ws, "start-up"), "utf8")).toMatch(/echo agent\n# === End agent-managed setup ===\necho mine/);
  });

  it("never follows a symlink the agent planted in its home: the files outside stay as they were", async () => {
    // The agent owns its home: between tasks it can swap any name there for a symlink to a
    // file it cannot write itself (with a root worker, /etc/passwd or the worker's own files).
    mkdirSync(ws, { recursive: true });
    const outside = path.join(root, "outside");
    mkdirSync(outside);
    const victims = ["passwd", "worker.env", "script"].map((name) => path.join(outside, name));
    for (const victim of victims) writeFileSync(victim, `original ${path.basename(victim)}\n`, { mode: 0o600 });
    symlinkSync(victims[0]!, path.join(ws, "SOUL.md"));
    symlinkSync(victims[1]!, path.join(ws, "CLAUDE.md"));
    symlinkSync(victims[2]!, path.join(ws, "start-up.sh"));
    const prepared = await prepareWorkspace({
      homeDir: ws,
      taskDir,
      bundle: bundle(
        [
          { kind: "SOUL", path: "SOUL.md", content: "soul from the app", versionId: "v1" },
          { kind: "CLAUDE", path: "CLAUDE.md", content: "claude from the app", versionId: "v2" },
        ],
        "echo agent part",
      ),
    });
    for (const victim of victims) {
      expect(readFileSync(victim, "utf8")).toBe(`original ${path.basename(victim)}\n`);
      expect(statSync(victim).mode & 0o777).toBe(0o600);
    }
    // The names are regular files of the home now, with the app's content (the start-up file executable).
    for (const [name, content] of [
      ["SOUL.md", "soul from the app"],
      ["CLAUDE.md", "claude from the app"],
    ]) {
      expect(lstatSync(path.join(ws, name!)).isSymbolicLink()).toBe(false);
      expect(readFileSync(path.join(ws, name!), "utf8")).toBe(content);
    }
    const startup = path.join(ws, prepared.startupFile);
    expect(lstatSync(startup).isFile()).toBe(true);
    expect(readFileSync(startup, "utf8")).toContain("echo agent part");
    expect(statSync(startup).mode & 0o777).toBe(0o755);
    // No temporary file is left behind.
    expect(readdirSync(ws).filter((name) => name.includes("swarmdeck-tmp"))).toEqual([]);

    // Planted again while the worker runs (the start-up file is rewritten when the global script changes).
    rmSync(startup);
    symlinkSync(victims[2]!, startup);
    await writeStartupFile(ws, { global: "echo global v2", agent: "echo agent part" });
    expect(readFileSync(victims[2]!, "utf8")).toBe("original script\n");
    expect(readFileSync(startup, "utf8")).toContain("echo global v2");
  });

  it("refuses to write into a home that is itself a symlink to a folder outside", async () => {
    const outside = path.join(root, "elsewhere");
    mkdirSync(outside);
    symlinkSync(outside, ws);
    await expect(
      prepareWorkspace({ homeDir: ws, taskDir, bundle: bundle([{ kind: "SOUL", path: "SOUL.md", content: "soul", versionId: "v1" }]) }),
    ).rejects.toThrow(/refusing to write SOUL.md: .* is a symlink or not a folder/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("readHomeFile", () => {
  it("reads a file of the home, and nothing that lies outside it whichever way the name leads there", async () => {
    const outside = path.join(root, "elsewhere");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "secret"), "the worker's environment");
    mkdirSync(path.join(ws, "memory", "notes"), { recursive: true });
    writeFileSync(path.join(ws, "memory", "notes", "lesson.md"), "use rg");
    symlinkSync(outside, path.join(ws, "memory", "swapped"));
    symlinkSync(path.join(outside, "secret"), path.join(ws, "memory", "link.md"));
    writeFileSync(path.join(ws, "memory", "big.md"), "x".repeat(101));

    expect(await readHomeFile(ws, path.join(ws, "memory", "notes", "lesson.md"), 100)).toBe("use rg");
    expect(await readHomeFile(ws, path.join(ws, "memory", "swapped", "secret"), 100)).toBeNull();
    expect(await readHomeFile(ws, path.join(ws, "memory", "link.md"), 100)).toBeNull();
    expect(await readHomeFile(ws, path.join(ws, "memory", "big.md"), 100)).toBeNull();
    expect(await readHomeFile(ws, path.join(ws, "memory", "gone.md"), 100)).toBeNull();
  });
});
