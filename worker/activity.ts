// The agent's signs of life during a task (output, a tool use reported by a Claude
// Code hook, a file change in the checkout or its home) and the two limits the
// worker enforces on them (reference 004's check-alive): the task's time limit
// (the task's own, else capabilities.yaml max_task_minutes, else
// MAX_TASK_MINUTES) and the no-progress limit (NO_PROGRESS_MINUTES without any
// sign of life). Heartbeats carry the last one to the app, which shows it.
import type { FSWatcher } from "node:fs";
import { readCapabilities } from "../lib/contracts/capabilities";
import type { Bundle } from "../lib/contracts/tasks";
import { watchFolder } from "./watch-tree";

export type LimitHit = { kind: "time_limit" | "no_progress"; reason: string };

/** "timed out after 30 min", "no progress for 0.5 min": minutes as the operator set them. */
export function minutesText(minutes: number): string {
  return `${Number(minutes.toFixed(2))} min`;
}

/** The time limit for this task, in minutes, and where it came from. */
export function taskTimeLimit(bundle: Bundle, workerDefault: number): { minutes: number; from: string } {
  const own = bundle.task.timeLimitMinutes;
  if (typeof own === "number" && own > 0) return { minutes: own, from: "the task's own limit" };
  const capabilities = bundle.files.find((file) => file.kind === "CAPABILITIES")?.content;
  if (capabilities?.trim()) {
    const parsed = readCapabilities(capabilities);
    if (parsed.ok) return { minutes: parsed.value.limits.max_task_minutes, from: "capabilities.yaml max_task_minutes" };
  }
  return { minutes: workerDefault, from: "MAX_TASK_MINUTES" };
}

export class ActivityWatch {
  private lastAt = Date.now();
  private lastWhat = "the task started";
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private watchers: FSWatcher[] = [];
  private hit: LimitHit | null = null;
  /** Runs of the agent in progress: the no-progress limit is about the agent, not the worker's own git work between runs. */
  private agentRuns = 0;

  constructor(
    private readonly options: {
      timeLimitMinutes: number;
      noProgressMinutes: number;
      /** Called once, when a limit is reached: the runner stops the agent's process group. */
      onLimit: (hit: LimitHit) => void;
    },
  ) {}

  /** A sign of life: `what` is shown on the task page ("output: running the tests", "tool use", ...). */
  touch(what: string): void {
    this.lastAt = Date.now();
    this.lastWhat = what.replace(/\s+/g, " ").trim().slice(0, 300) || "activity";
  }

  /** Around each run of the agent (the task, a verification fix, a conflict resolution). */
  agentStarted(): void {
    this.agentRuns += 1;
    this.touch("the agent started");
  }

  agentStopped(): void {
    this.agentRuns = Math.max(0, this.agentRuns - 1);
    this.touch("the agent stopped");
  }

  get last(): { at: string; what: string } {
    return { at: new Date(this.lastAt).toISOString(), what: this.lastWhat };
  }

  get limitHit(): LimitHit | null {
    return this.hit;
  }

  /** Starts the clock and watches these folders (recursively; .git is ignored) for file changes. */
  start(folders: string[]): void {
    for (const folder of folders) {
      const watcher = watchFolder(folder, {
        recursive: true,
        onChange: (file) => {
          if (file === ".git" || file.startsWith(".git/")) return;
          this.touch(`file change: ${file}`);
        },
        // A folder that cannot be watched (or a part of it that vanished) still has output and tool use as signs of life.
        onError: () => {},
      });
      if (watcher) this.watchers.push(watcher);
    }
    const { timeLimitMinutes, noProgressMinutes } = this.options;
    const everyMs = Math.max(200, Math.min(5_000, (Math.min(timeLimitMinutes, noProgressMinutes || Infinity) * 60_000) / 10));
    this.timer = setInterval(() => this.check(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }

  private check(): void {
    if (this.hit) return;
    const now = Date.now();
    const { timeLimitMinutes, noProgressMinutes, onLimit } = this.options;
    if (now - this.started >= timeLimitMinutes * 60_000) {
      this.hit = { kind: "time_limit", reason: `timed out after ${minutesText(timeLimitMinutes)}` };
    } else if (noProgressMinutes > 0 && this.agentRuns > 0 && now - this.lastAt >= noProgressMinutes * 60_000) {
      this.hit = { kind: "no_progress", reason: `no progress for ${minutesText(noProgressMinutes)} (last: ${this.lastWhat})` };
    }
    if (this.hit) {
      clearInterval(this.timer);
      onLimit(this.hit);
    }
  }
}
