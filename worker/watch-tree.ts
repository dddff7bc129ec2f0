// Watching the agent's folders for file changes: its signs of life
// (worker/activity.ts) and the live sync of its own files (worker/sync.ts).
//
// On Linux Node's recursive watcher scans each new folder as it appears; when the
// folder is gone again before the scan (a build's temporary directory, git's own
// .git/rebase-merge during a rebase) it emits an 'error', and an 'error' nobody
// listens to ends the process: the worker died in the middle of a task
// (worker/activity.test.ts churns folders the way that did it). Every watcher made
// here has a listener, and the watch goes on. Symlinks are not followed below the
// folder itself, so a link to / or /proc does not send the worker walking the machine.
import { type FSWatcher, watch } from "node:fs";

/**
 * Watches `folder` (and, with `recursive`, everything below it); `onChange` gets
 * the changed name relative to it. Null when the folder cannot be watched (it does
 * not exist yet, or is not readable).
 */
export function watchFolder(
  folder: string,
  options: { recursive: boolean; onChange: (name: string) => void; onError: (error: Error) => void },
): FSWatcher | null {
  try {
    const watcher = watch(folder, { recursive: options.recursive }, (_event, name) => options.onChange(String(name ?? "")));
    watcher.on("error", (error: NodeJS.ErrnoException) => {
      // A folder gone before it could be scanned is a removal, not a fault (newer Node releases treat it so too).
      if (error.code !== "ENOENT") options.onError(error);
    });
    return watcher;
  } catch {
    return null;
  }
}
