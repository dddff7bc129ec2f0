// People hear about what waits for them (reference 004 notifies when an idle
// agent files a proposal): identity proposals waiting for review and tasks
// agents offered, waiting to be accepted. One notification through the alert
// webhook (its formats, ntfy included) when something new has come in since
// the last one, at most once per interval (NOTIFY_INTERVAL_MINUTES, default 60),
// with a link to the page where it waits. The claim of a notification is a
// SwarmConfig row written in one transaction, so several app processes send it once.
import "server-only";
import type Database from "better-sqlite3";
import { type Notice, sendNoticeWebhook } from "@/lib/alerts/webhook";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { newId } from "@/lib/ids";
import { type Clock, systemClock } from "@/lib/schedules/clock";

export const NOTIFY_INTERVAL_KEY = "NOTIFY_INTERVAL_MINUTES";
export const NOTIFY_INTERVAL_ENV = "SWARMDECK_NOTIFY_INTERVAL_MINUTES";
export const STATE_KEY = "NOTIFY_WAITING_STATE";

export type Waiting = { id: string; title: string; createdAt: number };
export type State = { sentAt: number; newest: number };

export function notifyIntervalMs(sqlite: Database.Database, env: NodeJS.ProcessEnv = process.env): number {
  const stored = prepare(sqlite, "SELECT value FROM SwarmConfig WHERE scope = 'global' AND scopeId = '' AND key = ? AND secret = 0").get(
    NOTIFY_INTERVAL_KEY,
  ) as { value: string } | undefined;
  return intervalFrom(stored?.value, env);
}

/** The interval from the stored setting (shared with waiting-work.pg.ts). */
export function intervalFrom(stored: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  for (const raw of [stored, env[NOTIFY_INTERVAL_ENV]]) {
    const value = Number(raw);
    if (raw !== undefined && raw.trim() !== "" && Number.isFinite(value) && value > 0 && value <= 10_080) return value * 60_000;
  }
  return 60 * 60_000;
}

function waitingWork(sqlite: Database.Database) {
  const proposals = prepare(
    sqlite,
    `SELECT p.id, p.kind || ' of ' || a.name || ': ' || p.reason AS title, p.createdAt FROM IdentityProposal p JOIN Agent a ON a.id = p.agentId
     WHERE p.status IN ('pending', 'conflict') ORDER BY p.createdAt DESC`,
  ).all() as Waiting[];
  const offered = prepare(
    sqlite,
    `SELECT t.id, t.title || COALESCE(' (from ' || a.name || ')', '') AS title, t.createdAt FROM Task t LEFT JOIN Agent a ON a.id = COALESCE(t.agentId, t.createdById)
     WHERE t.status = 'offered' ORDER BY t.createdAt DESC`,
  ).all() as Waiting[];
  return { proposals, offered };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The notification for what waits (pure: unit-tested). */
export function waitingNotification(work: { proposals: Waiting[]; offered: Waiting[] }, baseUrl: string): Notice {
  const parts: string[] = [];
  if (work.proposals.length) parts.push(plural(work.proposals.length, "identity proposal", "identity proposals"));
  if (work.offered.length) parts.push(plural(work.offered.length, "offered task", "offered tasks"));
  const lines = (items: Waiting[], link: string) => [
    ...items.slice(0, 3).map((item) => `- ${item.title.replace(/\s+/g, " ").slice(0, 140)}`),
    ...(items.length > 3 ? [`- and ${items.length - 3} more`] : []),
    link,
  ];
  const base = baseUrl.replace(/\/+$/, "");
  const proposalsUrl = `${base}/proposals`;
  const tasksUrl = `${base}/tasks?status=offered`;
  const message = [
    ...(work.proposals.length ? ["Identity proposals to review:", ...lines(work.proposals, proposalsUrl)] : []),
    ...(work.offered.length ? [...(work.proposals.length ? [""] : []), "Tasks agents offered:", ...lines(work.offered, tasksUrl)] : []),
  ].join("\n");
  return {
    title: `Swarmdeck: ${parts.join(" and ")} waiting`,
    message,
    priority: "default",
    tags: ["inbox_tray", "swarmdeck"],
    click: work.proposals.length ? proposalsUrl : tasksUrl,
    payload: { waiting: { proposals: work.proposals.length, offeredTasks: work.offered.length, proposalsUrl, tasksUrl } },
  };
}

/**
 * One check: claims a notification when something new waits and the interval
 * since the last one has passed, then sends it. Returns what was sent, or null.
 */
export async function notifyWaitingWork({
  clock = systemClock,
  url = process.env.ALERT_WEBHOOK_URL,
  baseUrl = process.env.NEXTAUTH_URL ?? "http://localhost:3000",
}: {
  clock?: Clock;
  url?: string;
  baseUrl?: string;
} = {}): Promise<Notice | null> {
  if (!url) return null;
  if (usesPostgres()) return (await import("./waiting-work.pg")).notifyWaitingWorkPg({ clock, url, baseUrl });
  const now = clock();
  const note = await writeTransaction((sqlite) => {
    const work = waitingWork(sqlite);
    const newest = Math.max(0, ...work.proposals.map((w) => w.createdAt), ...work.offered.map((w) => w.createdAt));
    const row = prepare(sqlite, "SELECT value FROM SwarmConfig WHERE scope = 'global' AND scopeId = '' AND key = ?").get(STATE_KEY) as
      | { value: string }
      | undefined;
    const state: State = row ? (JSON.parse(row.value) as State) : { sentAt: 0, newest: 0 };
    if (newest <= state.newest || now - state.sentAt < notifyIntervalMs(sqlite)) return null;
    const value = JSON.stringify({ sentAt: now, newest } satisfies State);
    prepare(
      sqlite,
      `INSERT INTO SwarmConfig (id, scope, scopeId, key, value, secret, createdAt, updatedAt) VALUES (?, 'global', '', ?, ?, 0, ?, ?)
       ON CONFLICT(scope, scopeId, key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt`,
    ).run(newId(), STATE_KEY, value, now, now);
    return waitingNotification(work, baseUrl);
  });
  if (note) await sendNoticeWebhook(note, url);
  return note;
}
