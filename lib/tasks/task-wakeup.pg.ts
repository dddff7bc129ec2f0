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

/** Tells this process's notifications apart from the other instances'. */
const INSTANCE = randomUUID();

type Payload = { i: string; a: string | null; c: number };

type Listener = { client: pg.Client | null; ready: Promise<void> | null; retryTimer: NodeJS.Timeout | null; instance: string };

const globalForListener = globalThis as unknown as { swarmdeckTaskListener?: Listener };

function listener(): Listener {
  // Route handlers and instrumentation are bundled apart: they share one listener and one instance id.
  globalForListener.swarmdeckTaskListener ??= { client: null, ready: null, retryTimer: null, instance: INSTANCE };
  return globalForListener.swarmdeckTaskListener;
}

/** Publishes an announcement to the other instances (delivered to them once this statement commits). */
export async function publishTasksPg(change: { agentId: string | null; count?: number }): Promise<void> {
  const payload: Payload = { i: listener().instance, a: change.agentId, c: change.count ?? 1 };
  try {
    await pgSql().run("SELECT pg_notify($1, $2)", [TASKS_CHANNEL, JSON.stringify(payload)]);
  } catch (error) {
    // The other instances' polls find the work at their next safety re-check.
    console.warn(`[swarmdeck] could not announce tasks to the other instances (${(error as Error).message})`);
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
  if (payload.i === listener().instance) return;
  notifyTasks({ agentId: payload.a ?? null, count: Math.max(1, Number(payload.c) || 1) });
}

function connect(state: Listener): Promise<void> {
  const target = databaseTarget();
  if (target.kind !== "postgresql") return Promise.resolve();
  const client = new pg.Client({ connectionString: target.url, keepAlive: true, connectionTimeoutMillis: 5_000 });
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
