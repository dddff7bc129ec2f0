// The home's start-up files as the worker last knew them good, kept in WORKSPACE_DIR
// (the worker's, beside sync-state.json; not in the agent's home), so that a worker
// starts from them too. After each agent run the worker puts the start-up files back
// (worker/workspace.ts restoreStartupFiles), but what changed while no worker watched
// (an agent's run the worker was killed in, before it could put them back; a process
// the agent left behind; a home kept from a worker version that did not put them back)
// would otherwise run at the first setup run of the next start, unseen.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { SETUP_MARKER_END, SETUP_MARKER_START } from "../lib/setup-script/compose";
import { STARTUP_FILE_NAMES } from "../lib/setup-script/startup-file";
import type { Logger } from "./log";
import { restoreStartupFiles, type StartupSnapshot, snapshotStartupFiles, writeOwnFile } from "./workspace";
import type { WorkspaceLayout } from "./workspace-layout";

export const STARTUP_STATE_FILE = "startup-state.json";

type Stored = { files: Record<string, string | null> };

/** Records the start-up files as the worker just left them (a snapshot of worker/workspace.ts): the next start begins from these. */
export async function keepStartupBaseline(root: string, snapshot: StartupSnapshot): Promise<void> {
  const stored: Stored = { files: Object.fromEntries(snapshot.files) };
  await writeFile(path.join(root, STARTUP_STATE_FILE), `${JSON.stringify(stored)}\n`, { mode: 0o600 });
}

async function readBaseline(root: string): Promise<StartupSnapshot | null> {
  const text = await readFile(path.join(root, STARTUP_STATE_FILE), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    const stored = JSON.parse(text) as Stored;
    const files: StartupSnapshot["files"] = new Map();
    for (const name of STARTUP_FILE_NAMES) {
      const content = stored.files?.[name];
      files.set(name, typeof content === "string" ? content : null);
    }
    return { files };
  } catch {
    return null;
  }
}

/** The shebang and the setup block of a start-up file a worker wrote; null when it holds no block. */
function blockOnly(content: string): string | null {
  const text = content.replace(/\r\n/g, "\n");
  const start = text.indexOf(SETUP_MARKER_START);
  const end = text.indexOf(SETUP_MARKER_END, start + 1);
  if (start === -1 || end === -1) return null;
  const shebang = /^#![^\n]*\n/.exec(text)?.[0] ?? "";
  return `${shebang}${text.slice(start, end + SETUP_MARKER_END.length)}\n`;
}

const firstLines = (text: string) => {
  const lines = text.trim().split("\n");
  return `${lines.slice(0, 3).join(" / ")}${lines.length > 3 ? ` / ... (${lines.length} lines)` : ""}`;
};

/**
 * At the worker's start, before the setup script first runs: the start-up files as
 * recorded. Without a record, a home no worker used yet keeps its start-up files (an
 * operator's own, which the setup block is prepended to); in a home a worker used
 * before (a start-up file holds the setup block), nothing but that block is known to
 * be good: the lines outside it and the other start-up files go, and the log says
 * what they were. Then the record is made.
 */
export async function startFromKnownStartupFiles(layout: WorkspaceLayout, log: Logger): Promise<void> {
  const recorded = await readBaseline(layout.root);
  if (recorded) {
    const changed = await restoreStartupFiles(layout.home, recorded);
    if (changed.length)
      log.warn(
        `${changed.join(", ")}: changed since the worker last left ${changed.length === 1 ? "it" : "them"}: put back before the setup script runs`,
      );
  } else {
    const found = await snapshotStartupFiles(layout.home);
    const holder = [...found.files].find(([, content]) => content !== null && blockOnly(content) !== null)?.[0];
    if (holder) {
      for (const [name, content] of found.files) {
        if (content === null) continue;
        const file = path.join(layout.home, name);
        const kept = name === holder ? blockOnly(content)! : null;
        if (kept === content) continue;
        const dropped = kept === null ? content : content.replace(/^#![^\n]*\n/, "").replace(kept.replace(/^#![^\n]*\n/, "").trimEnd(), "");
        if (kept === null) await rm(file, { force: true });
        else await writeOwnFile(file, kept, 0o755);
        log.warn(
          `${name}: ${kept === null ? "removed" : "only its setup block kept"} at start: in a home a worker used before, only the setup block is known to be good (dropped: ${firstLines(dropped)})`,
        );
      }
    }
  }
  await keepStartupBaseline(layout.root, await snapshotStartupFiles(layout.home));
}
