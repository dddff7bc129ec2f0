// Watches a folder tree for the agent's file changes: its signs of life
// (worker/activity.ts) and the live sync of its own files (worker/sync.ts).
//
// chokidar, not fs.watch({ recursive: true }): on Linux Node's recursive watcher
// scans each new folder as it appears, and when the folder is gone again before the
// scan (a build's temporary directory, git's own .git/rebase-merge during a rebase)
// it emits an 'error' nobody can catch in time, which ends the worker in the middle
// of a task (worker/watch-tree.test.ts shows the churn that did it). chokidar treats
// a vanished path as a removal, and skips ignored folders instead of walking them.
import path from "node:path";
import { watch } from "chokidar";

export type TreeWatcher = { close(): void };

export function watchTree(
  root: string,
  options: {
    /** Called with the changed path relative to `root` ("" for the root itself). */
    onChange: (relative: string) => void;
    /** Paths relative to `root` that are neither reported nor descended into. */
    ignore?: (relative: string) => boolean;
    /** A watch that failed (permissions, too many watches): reported, never thrown. */
    onError?: (error: Error) => void;
  },
): TreeWatcher {
  const relative = (full: string) => path.relative(root, full).split(path.sep).join("/");
  const watcher = watch(root, {
    ignoreInitial: true,
    ignored: options.ignore ? (full: string) => options.ignore!(relative(full)) : undefined,
  });
  watcher.on("all", (_event, full) => options.onChange(relative(full)));
  watcher.on("error", (error) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  return {
    close() {
      void watcher.close();
    },
  };
}
