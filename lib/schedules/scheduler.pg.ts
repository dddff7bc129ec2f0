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
import { type AuditInput, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import { newId } from "@/lib/ids";
import { recordTaskRollupPg } from "@/lib/metrics/rollup.pg";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
import { type Clock, systemClock } from "./clock";
import {
  announce,
  dueSlot,
  type FireOptions,
  type Firing,
  type FiringContext,
  firingOutcome,
  nextRunAfter,
  type RunNowOptions,
  SCHEDULE_COLUMNS,
  type ScheduleRow,
  scheduledTask,
} from "./scheduler";
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
  context: FiringContext,
): Promise<string> {
  const { now, actor } = context;
  const taskId = newId();
  const task = scheduledTask(schedule, recipient, taskId, context);
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
      task.status,
      recipient.agentId,
      schedule.id,
      new Date(now),
    ],
  );
  await sql.run(
    `INSERT INTO "TaskEvent" ("taskId", "type", "fromStatus", "toStatus", "message", "data", "actorType", "actorId", "createdAt")
     VALUES ($1, 'created', NULL, $2, $3, $4, $5, $6, $7)`,
    [taskId, task.status, task.message, task.data, actor.type, actor.id, new Date(now)],
  );
  await recordTaskRollupPg(sql, { kind: "created", agentId: recipient.agentId, at: now });
  audits.push(task.audit);
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
  const context = { runId, scheduledFor, trigger, now, actor };
  const taskIds: string[] = [];
  for (const recipient of plan.recipients) {
    taskIds.push(await createTaskPg(sql, audits, schedule, recipient, context));
  }
  const { firing, audit } = firingOutcome(schedule, plan, taskIds, context);
  await sql.run(`UPDATE "ScheduleRun" SET "status" = $1, "taskId" = $2, "taskIds" = $3, "skips" = $4, "error" = $5 WHERE "id" = $6`, [
    firing.status,
    firing.taskId,
    JSON.stringify(taskIds),
    JSON.stringify(plan.skips),
    plan.error,
    runId,
  ]);
  await sql.run(`UPDATE "Schedule" SET "lastRunAt" = $1, "lastTaskId" = COALESCE($2, "lastTaskId"), "updatedAt" = $1 WHERE "id" = $3`, [
    new Date(now),
    firing.taskId,
    schedule.id,
  ]);
  audits.push(audit);
  return firing;
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
    const next = nextRunAfter(schedule, now);
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
      const { slot, skipAll } = dueSlot(current, schedule.nextRunAt, now, minMs);
      return fireSlotPg(tx, audits, current, { scheduledFor: slot, trigger: "cron", now, skipAll });
    });
    if (firing) {
      firings.push(firing);
      announce(firing);
    }
  }
  return firings;
}

export async function runScheduleNowPg({ id, actor, clock = systemClock }: RunNowOptions): Promise<Firing | null> {
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
