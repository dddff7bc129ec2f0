// The cross-instance half of task-wakeup.ts on the PostgreSQL store. Several app
// instances share one database, and a long poll waits in the process that took
// it: work created (or a slot freed) on another instance must wake it too. Every
// announcement is also published with pg_notify on the channel below, and each app
// process keeps ONE dedicated connection LISTENing on it (opened when the first
// poll waits, reopened when it drops) that hands each notification to the local
// hub (notifyTasks). A process skips its own notifications (it woke its polls
// already). While the listener is down, notifications are lost: when it comes
// back every waiting poll is woken to look again, and a poll re-checks the
// database every POLL_SAFETY_RECHECK_MS (settings.ts) in any case.
import "server-only";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { databaseTarget } from "@/lib/config/database-url";
import { pgSql } from "@/lib/pg";
import { notifyTasks, wakeAllPolls } from "./task-wakeup";

export const TASKS_CHANNEL = "swarmdeck_tasks";

/** How the listening connections show in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "swarmdeck-task-listener";

/** Tells this process's notifications apart from the other instances'. */
const INSTANCE = randomUUID();

/** One notification: the instance that sent it, and its announcements as [agentId or null for the pool, count]. */
type Payload = { i: string; w: Array<[string | null, number]> };

type Listener = {
  client: pg.Client | null;
  ready: Promise<void> | null;
  retryTimer: NodeJS.Timeout | null;
  instance: string;
  /** Announcements not published yet: those of one turn of the event loop go out together. */
  outbox: Array<{ agentId: string | null; count: number }> | null;
};

const globalForListener = globalThis as unknown as { swarmdeckTaskListener?: Listener };

function listener(): Listener {
  // Route handlers and instrumentation are bundled apart: they share one listener and one instance id.
  globalForListener.swarmdeckTaskListener ??= { client: null, ready: null, retryTimer: null, instance: INSTANCE, outbox: null };
  return globalForListener.swarmdeckTaskListener;
}

/** Announcements per notification: a payload stays far below PostgreSQL's 8000-byte limit. */
const PER_NOTIFICATION = 100;

/**
 * Publishes an announcement to the other instances. Those made in the same turn
 * of the event loop (a busy instance finishing many tasks) share one pg_notify:
 * one agent's are merged into one, the pool's counts added up.
 */
export async function publishTasksPg(change: { agentId: string | null; count?: number }): Promise<void> {
  const state = listener();
  if (state.outbox) {
    state.outbox.push({ agentId: change.agentId, count: change.count ?? 1 });
    return;
  }
  state.outbox = [{ agentId: change.agentId, count: change.count ?? 1 }];
  await new Promise((resolve) => setImmediate(resolve));
  const changes = state.outbox;
  state.outbox = null;
  const merged = new Map<string | null, number>();
  for (const { agentId, count } of changes) merged.set(agentId, agentId === null ? (merged.get(null) ?? 0) + count : 1);
  const entries = [...merged.entries()];
  for (let start = 0; start < entries.length; start += PER_NOTIFICATION) {
    const payload: Payload = { i: state.instance, w: entries.slice(start, start + PER_NOTIFICATION) };
    try {
      await pgSql().run("SELECT pg_notify($1, $2)", [TASKS_CHANNEL, JSON.stringify(payload)]);
    } catch (error) {
      // The other instances' polls find the work at their next safety re-check.
      console.warn(`[swarmdeck] could not announce tasks to the other instances (${(error as Error).message})`);
    }
  }
}

function onNotification(message: pg.Notification) {
  if (message.channel !== TASKS_CHANNEL || !message.payload) return;
  let payload: Payload;
  try {
    payload = JSON.parse(message.payload) as Payload;
  } catch {
    return;
  }
  if (payload.i === listener().instance || !Array.isArray(payload.w)) return;
  for (const [agentId, count] of payload.w) notifyTasks({ agentId: agentId ?? null, count: Math.max(1, Number(count) || 1) });
}

function connect(state: Listener): Promise<void> {
  const target = databaseTarget();
  if (target.kind !== "postgresql") return Promise.resolve();
  const client = new pg.Client({
    connectionString: target.url,
    keepAlive: true,
    connectionTimeoutMillis: 5_000,
    application_name: LISTENER_APPLICATION_NAME,
  });
  const dropped = (why: string) => {
    if (state.client !== client) return;
    console.warn(`[swarmdeck] the task listener connection dropped (${why}); reconnecting`);
    state.client = null;
    state.ready = null;
    client.removeAllListeners("notification");
    client.end().catch(() => undefined);
    scheduleReconnect(state);
  };
  client.on("error", (error) => dropped(error.message));
  client.on("end", () => dropped("closed"));
  client.on("notification", onNotification);
  state.client = client;
  return client
    .connect()
    .then(() => client.query(`LISTEN ${TASKS_CHANNEL}`))
    .then(
      () => {
        // Anything announced while nobody listened is lost: every waiting poll looks again.
        wakeAllPolls();
      },
      (error: Error) => dropped(error.message),
    );
}

function scheduleReconnect(state: Listener) {
  if (state.retryTimer) return;
  state.retryTimer = setTimeout(() => {
    state.retryTimer = null;
    if (!state.client) state.ready = connect(state);
  }, 1_000);
  state.retryTimer.unref?.();
}

/**
 * Makes sure this process listens for the other instances' announcements. The
 * first call waits until the LISTEN is in place (so a poll that then finds
 * nothing cannot miss a task announced after its claim); later calls, and calls
 * while a dropped connection is being reopened, return at once.
 */
export async function ensureTaskListenerPg(): Promise<void> {
  const state = listener();
  if (state.client || state.retryTimer) {
    if (state.ready) await state.ready;
    return;
  }
  state.ready = connect(state);
  await state.ready;
}
