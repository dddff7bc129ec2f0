// Keeps a claimed task alive and carries progress notes. The app's answer can end
// the run: `cancelled` (an operator cancelled it) or a 403/404/409 (the task is no
// longer this worker's, e.g. requeued after a stall).
import { type ApiClient, WorkerApiError } from "./api-client";
import type { Logger } from "./log";

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private pending: string | undefined;
  private stopped = false;
  private inFlight: Promise<void> = Promise.resolve();
  /** An app older than the lastActivity field refuses it (400): then beats go without it. */
  private activityRefused = false;

  constructor(
    private readonly options: {
      api: ApiClient;
      log: Logger;
      taskId: string;
      intervalMs: number;
      onEnd: (why: "cancelled" | "lost", detail: string) => void;
      /** The agent's last sign of life, carried by every beat. */
      lastActivity?: () => { at: string; what: string } | undefined;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.options.intervalMs);
  }

  /** Sends a progress note now (swarm progress); later beats carry no note until the next one. */
  progress(note: string): Promise<void> {
    this.pending = note.slice(0, 4000);
    return this.beat();
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    return this.inFlight;
  }

  beat(): Promise<void> {
    const run = this.inFlight.then(() => this.send());
    this.inFlight = run;
    return run;
  }

  private async send(): Promise<void> {
    if (this.stopped) return;
    const { api, log, taskId, onEnd } = this.options;
    const progress = this.pending;
    this.pending = undefined;
    try {
      const activity = this.activityRefused ? undefined : this.options.lastActivity?.();
      const answer = await api.heartbeat(taskId, progress, activity).catch((error) => {
        if (!(activity && error instanceof WorkerApiError && error.status === 400)) throw error;
        this.activityRefused = true;
        log.warn("the app does not take the agent's last activity in heartbeats (an older app); sending beats without it", taskId);
        return api.heartbeat(taskId, progress);
      });
      if (progress) log.info(`progress: ${progress.split("\n")[0]}`, taskId);
      if (answer.cancelled && answer.status === "cancelled") onEnd("cancelled", "the task was cancelled");
      else if (answer.cancelled) onEnd("lost", `the task was taken back from this worker (now ${answer.status})`);
    } catch (error) {
      if (error instanceof WorkerApiError && [403, 404, 409].includes(error.status)) {
        onEnd("lost", `the task is no longer this worker's: ${error.message}`);
        return;
      }
      if (progress) this.pending ??= progress;
      log.warn(`heartbeat failed: ${(error as Error).message}`, taskId);
    }
  }
}
