// The PostgreSQL twin of waiting-work.ts. The claim of a notification is the same
// SwarmConfig row; here the transaction first takes a cluster-wide advisory lock,
// so two instances checking at once (a fail-over overlap of the leader,
// lib/jobs/leader.ts) line up: the second sees the first one's claim and sends nothing.
import "server-only";
import { type Notice, sendNoticeWebhook } from "@/lib/alerts/webhook";
import { newId } from "@/lib/ids";
import { pgTransaction, type Sql } from "@/lib/pg";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { intervalFrom, NOTIFY_INTERVAL_KEY, STATE_KEY, type State, type Waiting, waitingNotification } from "./waiting-work";

export async function notifyIntervalMsPg(sql: Sql, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const stored = await sql.get<{ value: string }>(
    `SELECT "value" FROM "SwarmConfig" WHERE "scope" = 'global' AND "scopeId" = '' AND "key" = $1 AND "secret" = false`,
    [NOTIFY_INTERVAL_KEY],
  );
  return intervalFrom(stored?.value, env);
}

async function waitingWork(sql: Sql) {
  const proposals = await sql.all<Waiting>(
    `SELECT p."id", p."kind" || ' of ' || a."name" || ': ' || p."reason" AS "title", p."createdAt"
     FROM "IdentityProposal" p JOIN "Agent" a ON a."id" = p."agentId"
     WHERE p."status" IN ('pending', 'conflict') ORDER BY p."createdAt" DESC, p."id" DESC`,
  );
  const offered = await sql.all<Waiting>(
    `SELECT t."id", t."title" || COALESCE(' (from ' || a."name" || ')', '') AS "title", t."createdAt"
     FROM "Task" t LEFT JOIN "Agent" a ON a."id" = COALESCE(t."agentId", t."createdById")
     WHERE t."status" = 'offered' ORDER BY t."createdAt" DESC, t."id" DESC`,
  );
  return { proposals, offered };
}

export async function notifyWaitingWorkPg({
  clock = systemClock,
  url,
  baseUrl,
}: {
  clock?: Clock;
  url: string;
  baseUrl: string;
}): Promise<Notice | null> {
  const now = clock();
  const note = await pgTransaction(async (sql) => {
    await sql.get(`SELECT pg_advisory_xact_lock(hashtext('swarmdeck:notify-waiting'))`);
    const work = await waitingWork(sql);
    const newest = Math.max(0, ...work.proposals.map((w) => w.createdAt), ...work.offered.map((w) => w.createdAt));
    const row = await sql.get<{ value: string }>(
      `SELECT "value" FROM "SwarmConfig" WHERE "scope" = 'global' AND "scopeId" = '' AND "key" = $1`,
      [STATE_KEY],
    );
    const state: State = row ? (JSON.parse(row.value) as State) : { sentAt: 0, newest: 0 };
    if (newest <= state.newest || now - state.sentAt < (await notifyIntervalMsPg(sql))) return null;
    const value = JSON.stringify({ sentAt: now, newest } satisfies State);
    await sql.run(
      `INSERT INTO "SwarmConfig" ("id", "scope", "scopeId", "key", "value", "secret", "createdAt", "updatedAt") VALUES ($1, 'global', '', $2, $3, false, $4, $4)
       ON CONFLICT ("scope", "scopeId", "key") DO UPDATE SET "value" = excluded."value", "updatedAt" = excluded."updatedAt"`,
      [newId(), STATE_KEY, value, new Date(now)],
    );
    return waitingNotification(work, baseUrl);
  });
  if (note) await sendNoticeWebhook(note, url);
  return note;
}
