// The PostgreSQL twin of scheduler.ts. The same firings, each slot exactly once,
// with several app instances on one database: the scheduler job runs on the
// leader only (lib/jobs/leader.ts), and should two instances both believe they
// lead for a moment (a fail-over overlap), each due firing is still claimed once.
//
// What differs from the SQLite path (one write transaction for every due schedule):
// - one transaction per due schedule, which first claims it with a conditional
//   UPDATE of its nextRunAt (WHERE "nextRunAt" IS NOT DISTINCT FROM the due time it
//   read): the loser of a race updates no row and fires nothing. The ScheduleRun
//   row (unique scheduleId, scheduledFor) stays the second guard, as on SQLite, and
//   is the only guard of a manual run;
// - the audit events are appended last in the transaction (appendAuditPg takes the
//   chain's cluster-wide lock until commit);
// - the new tasks are announced after each commit (announceTasks of
//   lib/tasks/dispatch.ts, which also wakes polls waiting on other instances).
import "server-only";
import { type Actor, type AuditInput, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import { recordTaskRollupPg } from "@/lib/metrics/rollup.pg";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
import { type Clock, systemClock } from "./clock";
import { latestSlotAtOrBefore, nextSlot } from "./cron";
import { newId } from "./ids";
import { announce, type FireOptions, type Firing, SCHEDULE_COLUMNS, type ScheduleRow } from "./scheduler";
import { minIntervalMsPg } from "./settings.pg";
import type { Recipient, RunPlan } from "./targets";
import { planRunPg } from "./targets.pg";

const COLUMNS = SCHEDULE_COLUMNS.split(",")
  .map((column) => `"${column.trim()}"`)
  .join(", ");

type Audits = AuditInput[];

async function createTaskPg(
  sql: Sql,
  audits: Audits,
  schedule: ScheduleRow,
  recipient: Recipient,
  { runId, scheduledFor, trigger, now, actor }: { runId: string; scheduledFor: number; trigger: string; now: number; actor: Actor },
): Promise<string> {
  const taskId = newId();
  const status = recipient.agentId ? "pending" : "unassigned";
  await sql.run(
    `INSERT INTO "Task" ("id", "title", "description", "type", "tags", "priority", "status", "agentId", "scheduleId", "attempts", "createdAt", "updatedAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $10)`,
    [
      taskId,
      schedule.taskTitle,
      schedule.taskDescription,
      schedule.taskType,
      schedule.taskTags,
      schedule.taskPriority,
      status,
      recipient.agentId,
      schedule.id,
      new Date(now),
    ],
  );
  await sql.run(
    `INSERT INTO "TaskEvent" ("taskId", "type", "fromStatus", "toStatus", "message", "data", "actorType", "actorId", "createdAt")
     VALUES ($1, 'created', NULL, $2, $3, $4, $5, $6, $7)`,
    [
      taskId,
      status,
      `Created by schedule "${schedule.name}" (${trigger === "manual" ? "run now" : "cron"})`,
      JSON.stringify({ scheduleId: schedule.id, runId, scheduledFor: new Date(scheduledFor).toISOString() }),
      actor.type,
      actor.id,
      new Date(now),
    ],
  );
  await recordTaskRollupPg(sql, { kind: "created", agentId: recipient.agentId, at: now });
  audits.push({
    actor,
    action: "task.created",
    targetType: "task",
    targetId: taskId,
    agentId: recipient.agentId,
    data: { title: schedule.taskTitle, status, scheduleId: schedule.id, runId },
  });
  return taskId;
}

/**
 * fireSlot of scheduler.ts inside the caller's `pgTransaction`; the audit events
 * go to `audits` for the caller to append last. Returns null when the slot was
 * already fired (by this or another instance).
 */
async function fireSlotPg(sql: Sql, audits: Audits, schedule: ScheduleRow, options: FireOptions): Promise<Firing | null> {
  const { scheduledFor, trigger, now, actor = SYSTEM_ACTOR, seenNow = Date.now() } = options;
  const runId = newId();
  const claimed = await sql.run(
    `INSERT INTO "ScheduleRun" ("id", "scheduleId", "scheduledFor", "firedAt", "trigger", "status") VALUES ($1, $2, $3, $4, $5, 'created')
     ON CONFLICT ("scheduleId", "scheduledFor") DO NOTHING`,
    [runId, schedule.id, new Date(scheduledFor), new Date(now), trigger],
  );
  if (claimed === 0) return null;

  const plan: RunPlan = options.skipAll
    ? { recipients: [], skips: [{ agentId: null, agentName: null, reason: options.skipAll }], error: null }
    : await planRunPg(sql, schedule, seenNow);
  const taskIds: string[] = [];
  for (const recipient of plan.recipients) {
    taskIds.push(await createTaskPg(sql, audits, schedule, recipient, { runId, scheduledFor, trigger, now, actor }));
  }
  const status: Firing["status"] = plan.error ? "failed" : taskIds.length === 0 ? "skipped" : plan.skips.length > 0 ? "partial" : "created";
  const firstTask = taskIds[0] ?? null;
  await sql.run(`UPDATE "ScheduleRun" SET "status" = $1, "taskId" = $2, "taskIds" = $3, "skips" = $4, "error" = $5 WHERE "id" = $6`, [
    status,
    firstTask,
    JSON.stringify(taskIds),
    JSON.stringify(plan.skips),
    plan.error,
    runId,
  ]);
  await sql.run(`UPDATE "Schedule" SET "lastRunAt" = $1, "lastTaskId" = COALESCE($2, "lastTaskId"), "updatedAt" = $1 WHERE "id" = $3`, [
    new Date(now),
    firstTask,
    schedule.id,
  ]);
  audits.push({
    actor,
    action: status === "failed" ? "schedule.fire_failed" : "schedule.fired",
    targetType: "schedule",
    targetId: schedule.id,
    agentId: schedule.agentId,
    data: {
      runId,
      trigger,
      status,
      taskIds,
      skipped: plan.skips.map((skip) => ({ agentId: skip.agentId, reason: skip.reason })),
      scheduledFor: new Date(scheduledFor).toISOString(),
      ...(plan.error ? { error: plan.error } : {}),
    },
  });
  return {
    runId,
    scheduleId: schedule.id,
    scheduledFor,
    taskId: firstTask,
    taskIds,
    agentIds: plan.recipients.map((recipient) => recipient.agentId),
    skips: plan.skips,
    status,
    ...(plan.error ? { error: plan.error } : {}),
  };
}

/** A transaction that may fire: its audit events are appended last, before the commit. */
function firingTransaction(fn: (sql: Sql, audits: Audits) => Promise<Firing | null>): Promise<Firing | null> {
  return pgTransaction(async (sql) => {
    const audits: Audits = [];
    const firing = await fn(sql, audits);
    for (const audit of audits) await appendAuditPg(sql, audit);
    return firing;
  });
}

export async function runDueSchedulesPg({ clock = systemClock }: { clock?: Clock } = {}): Promise<Firing[]> {
  const now = clock();
  const sql = pgSql();
  const minMs = await minIntervalMsPg(sql);
  const due = await sql.all<ScheduleRow>(
    `SELECT ${COLUMNS} FROM "Schedule" WHERE "enabled" AND ("nextRunAt" IS NULL OR "nextRunAt" <= $1) ORDER BY "nextRunAt" NULLS FIRST, "id"`,
    [new Date(now)],
  );
  const firings: Firing[] = [];
  for (const schedule of due) {
    let next: number | null = null;
    try {
      next = nextSlot(schedule.cron, schedule.timezone, now);
    } catch (error) {
      console.error(`[swarmdeck] schedule ${schedule.id} has an unusable cron expression:`, error);
    }
    const firing = await firingTransaction(async (tx, audits) => {
      // The claim: only the instance that moves nextRunAt on from the value it read fires this slot.
      const claimed = await tx.get<ScheduleRow>(
        `UPDATE "Schedule" SET "nextRunAt" = $1, "updatedAt" = $2
         WHERE "id" = $3 AND "enabled" AND "nextRunAt" IS NOT DISTINCT FROM $4 RETURNING ${COLUMNS}`,
        [
          next === null ? null : new Date(next),
          new Date(now),
          schedule.id,
          schedule.nextRunAt === null ? null : new Date(schedule.nextRunAt),
        ],
      );
      if (!claimed || schedule.nextRunAt === null) return null;
      // The row as it is now (locked until commit: a manual run may have moved lastRunAt), with the slot it was due at.
      const current: ScheduleRow = { ...claimed, nextRunAt: schedule.nextRunAt };
      // The latest slot that has come (several missed slots fire once, as this one).
      const latest = latestSlotAtOrBefore(current.cron, current.timezone, now);
      const slot = latest !== null && latest >= schedule.nextRunAt ? latest : schedule.nextRunAt;
      const sinceLast = current.lastRunAt === null ? null : now - current.lastRunAt;
      const skipAll =
        sinceLast !== null && sinceLast < minMs
          ? `The last run was ${Math.round(sinceLast / 60_000)} minute(s) ago; the minimum interval is ${minMs / 60_000} minutes`
          : undefined;
      return fireSlotPg(tx, audits, current, { scheduledFor: slot, trigger: "cron", now, skipAll });
    });
    if (firing) {
      firings.push(firing);
      announce(firing);
    }
  }
  return firings;
}

export async function runScheduleNowPg({
  id,
  actor,
  clock = systemClock,
}: {
  id: string;
  actor: Actor;
  clock?: Clock;
}): Promise<Firing | null> {
  const firing = await firingTransaction(async (tx, audits) => {
    const schedule = await tx.get<ScheduleRow>(`SELECT ${COLUMNS} FROM "Schedule" WHERE "id" = $1`, [id]);
    if (!schedule) return null;
    const now = clock();
    // A manual run's slot is its own instant; a second click in the same millisecond is the same run.
    return fireSlotPg(tx, audits, schedule, { scheduledFor: now, trigger: "manual", now, actor });
  });
  announce(firing);
  return firing;
}
