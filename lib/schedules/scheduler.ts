// The scheduler: fires due schedules, each slot exactly once.
//
// Every slot is claimed by inserting a ScheduleRun row with the unique
// (scheduleId, scheduledFor), in the same raw transaction that writes the task,
// its `created` event, the audit events, the rollup and the schedule's
// lastRunAt/nextRunAt. A restart, or a second app process, finds the slot taken
// and moves on. Slots missed while the app was down collapse into one firing (the
// latest missed slot), and nextRunAt moves to the first slot after now.
import "server-only";
import type Database from "better-sqlite3";
import { type Actor, type AuditInput, appendAuditSync, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { newId } from "@/lib/ids";
import { recordTaskRollup } from "@/lib/metrics/rollup";
import { announceTasks } from "@/lib/tasks/dispatch";
import { type Clock, systemClock } from "./clock";
import { latestSlotAtOrBefore, nextSlot } from "./cron";
import { minIntervalMs } from "./settings";
import { planRun, type Recipient, type RunPlan, type Skip } from "./targets";

export type ScheduleRow = {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  enabled: number;
  targetKind: string;
  targetValue: string | null;
  agentId: string | null;
  taskTitle: string;
  taskDescription: string;
  taskType: string;
  taskTags: string;
  taskPriority: number;
  lastRunAt: number | null;
  nextRunAt: number | null;
};

export const SCHEDULE_COLUMNS =
  "id, name, cron, timezone, enabled, targetKind, targetValue, agentId, taskTitle, taskDescription, taskType, taskTags, taskPriority, lastRunAt, nextRunAt";

export type Firing = {
  runId: string;
  scheduleId: string;
  scheduledFor: number;
  /** The first task (null when none was created). */
  taskId: string | null;
  taskIds: string[];
  /** Who got a task (null: the pool). */
  agentIds: Array<string | null>;
  skips: Skip[];
  status: "created" | "partial" | "skipped" | "failed";
  error?: string;
};

export type FireOptions = {
  scheduledFor: number;
  trigger: "cron" | "manual";
  now: number;
  actor?: Actor;
  /** Real time, for the agents' lastSeenAt (the clock may be shifted in tests). */
  seenNow?: number;
  /** A reason to create nothing at all this time (the minimum interval). */
  skipAll?: string;
};

export type FiringContext = { runId: string; scheduledFor: number; trigger: string; now: number; actor: Actor };

/** A task a firing creates for one recipient (both stores): its status, its `created` event and its audit input. */
export function scheduledTask(
  schedule: ScheduleRow,
  recipient: Recipient,
  taskId: string,
  { runId, scheduledFor, trigger, actor }: FiringContext,
): { status: string; message: string; data: string; audit: AuditInput } {
  const status = recipient.agentId ? "pending" : "unassigned";
  return {
    status,
    message: `Created by schedule "${schedule.name}" (${trigger === "manual" ? "run now" : "cron"})`,
    data: JSON.stringify({ scheduleId: schedule.id, runId, scheduledFor: new Date(scheduledFor).toISOString() }),
    audit: {
      actor,
      action: "task.created",
      targetType: "task",
      targetId: taskId,
      agentId: recipient.agentId,
      data: { title: schedule.taskTitle, status, scheduleId: schedule.id, runId },
    },
  };
}

function createTaskSync(sqlite: Database.Database, schedule: ScheduleRow, recipient: Recipient, context: FiringContext): string {
  const { now, actor } = context;
  const taskId = newId();
  const task = scheduledTask(schedule, recipient, taskId, context);
  prepare(
    sqlite,
    `INSERT INTO Task (id, title, description, type, tags, priority, status, agentId, scheduleId, attempts, createdAt, updatedAt)
     VALUES (@id, @title, @description, @type, @tags, @priority, @status, @agentId, @scheduleId, 0, @now, @now)`,
  ).run({
    id: taskId,
    title: schedule.taskTitle,
    description: schedule.taskDescription,
    type: schedule.taskType,
    tags: schedule.taskTags,
    priority: schedule.taskPriority,
    status: task.status,
    agentId: recipient.agentId,
    scheduleId: schedule.id,
    now,
  });
  prepare(
    sqlite,
    `INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, message, data, actorType, actorId, createdAt)
     VALUES (?, 'created', NULL, ?, ?, ?, ?, ?, ?)`,
  ).run(taskId, task.status, task.message, task.data, actor.type, actor.id, now);
  recordTaskRollup(sqlite, { kind: "created", agentId: recipient.agentId, at: now });
  appendAuditSync(sqlite, task.audit);
  return taskId;
}

/**
 * The outcome of a fired slot once its tasks exist (both stores): the Firing
 * returned, whose status and first task go to the ScheduleRun and Schedule rows,
 * and the `schedule.fired` (or `schedule.fire_failed`) audit input.
 */
export function firingOutcome(
  schedule: ScheduleRow,
  plan: RunPlan,
  taskIds: string[],
  { runId, scheduledFor, trigger, actor }: FiringContext,
): { firing: Firing; audit: AuditInput } {
  const status: Firing["status"] = plan.error ? "failed" : taskIds.length === 0 ? "skipped" : plan.skips.length > 0 ? "partial" : "created";
  return {
    firing: {
      runId,
      scheduleId: schedule.id,
      scheduledFor,
      taskId: taskIds[0] ?? null,
      taskIds,
      agentIds: plan.recipients.map((recipient) => recipient.agentId),
      skips: plan.skips,
      status,
      ...(plan.error ? { error: plan.error } : {}),
    },
    audit: {
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
    },
  };
}

/**
 * Fires one slot of a schedule inside the caller's write transaction: one task
 * per target agent (lib/schedules/targets.ts), the skipped targets with their
 * reasons. Returns null when the slot was already fired (by this or another process).
 */
export function fireSlot(sqlite: Database.Database, schedule: ScheduleRow, options: FireOptions): Firing | null {
  const { scheduledFor, trigger, now, actor = SYSTEM_ACTOR, seenNow = Date.now() } = options;
  const runId = newId();
  const claimed = prepare(
    sqlite,
    `INSERT INTO ScheduleRun (id, scheduleId, scheduledFor, firedAt, trigger, status) VALUES (?, ?, ?, ?, ?, 'created')
     ON CONFLICT(scheduleId, scheduledFor) DO NOTHING`,
  ).run(runId, schedule.id, scheduledFor, now, trigger);
  if (claimed.changes === 0) return null;

  const plan: RunPlan = options.skipAll
    ? { recipients: [], skips: [{ agentId: null, agentName: null, reason: options.skipAll }], error: null }
    : planRun(sqlite, schedule, seenNow);
  const context = { runId, scheduledFor, trigger, now, actor };
  const taskIds = plan.recipients.map((recipient) => createTaskSync(sqlite, schedule, recipient, context));
  const { firing, audit } = firingOutcome(schedule, plan, taskIds, context);
  prepare(sqlite, "UPDATE ScheduleRun SET status = ?, taskId = ?, taskIds = ?, skips = ?, error = ? WHERE id = ?").run(
    firing.status,
    firing.taskId,
    JSON.stringify(taskIds),
    JSON.stringify(plan.skips),
    plan.error,
    runId,
  );
  prepare(sqlite, "UPDATE Schedule SET lastRunAt = ?, lastTaskId = COALESCE(?, lastTaskId), updatedAt = ? WHERE id = ?").run(
    now,
    firing.taskId,
    now,
    schedule.id,
  );
  appendAuditSync(sqlite, audit);
  return firing;
}

export function announce(firing: Firing | null) {
  // Wake the waiting polls of each agent (or of the pool) after the commit.
  for (const agentId of firing?.agentIds ?? []) announceTasks({ agentId });
}

/** The schedule's next slot after now (null, and an error logged, for an unusable cron expression). */
export function nextRunAfter(schedule: ScheduleRow, now: number): number | null {
  try {
    return nextSlot(schedule.cron, schedule.timezone, now);
  } catch (error) {
    console.error(`[swarmdeck] schedule ${schedule.id} has an unusable cron expression:`, error);
    return null;
  }
}

/**
 * The slot a schedule due at `nextRunAt` fires (the latest slot that has come:
 * several missed slots fire once, as this one) and, when its last run is within
 * the minimum interval, the reason to create nothing (both stores).
 */
export function dueSlot(schedule: ScheduleRow, nextRunAt: number, now: number, minMs: number): { slot: number; skipAll?: string } {
  const latest = latestSlotAtOrBefore(schedule.cron, schedule.timezone, now);
  const slot = latest !== null && latest >= nextRunAt ? latest : nextRunAt;
  const sinceLast = schedule.lastRunAt === null ? null : now - schedule.lastRunAt;
  const skipAll =
    sinceLast !== null && sinceLast < minMs
      ? `The last run was ${Math.round(sinceLast / 60_000)} minute(s) ago; the minimum interval is ${minMs / 60_000} minutes`
      : undefined;
  return { slot, skipAll };
}

/** Fires every enabled schedule whose nextRunAt has come; gives a nextRunAt to enabled schedules without one. */
export async function runDueSchedules({ clock = systemClock }: { clock?: Clock } = {}): Promise<Firing[]> {
  if (usesPostgres()) return (await import("./scheduler.pg")).runDueSchedulesPg({ clock });
  const now = clock();
  const firings = await writeTransaction((sqlite) => {
    const firings: Firing[] = [];
    const minMs = minIntervalMs(sqlite);
    const due = prepare(
      sqlite,
      `SELECT ${SCHEDULE_COLUMNS} FROM Schedule WHERE enabled = 1 AND (nextRunAt IS NULL OR nextRunAt <= ?) ORDER BY nextRunAt`,
    ).all(now) as ScheduleRow[];
    for (const schedule of due) {
      const next = nextRunAfter(schedule, now);
      if (schedule.nextRunAt !== null) {
        const { slot, skipAll } = dueSlot(schedule, schedule.nextRunAt, now, minMs);
        const firing = fireSlot(sqlite, schedule, { scheduledFor: slot, trigger: "cron", now, skipAll });
        if (firing) firings.push(firing);
      }
      prepare(sqlite, "UPDATE Schedule SET nextRunAt = ?, updatedAt = ? WHERE id = ?").run(next, now, schedule.id);
    }
    return firings;
  });
  for (const firing of firings) announce(firing);
  return firings;
}

export type RunNowOptions = { id: string; actor: Actor; clock?: Clock };

/** POST /api/v1/schedules/{id}/run: one firing now, outside the cron slots (nextRunAt is unchanged). */
export async function runScheduleNow({ id, actor, clock = systemClock }: RunNowOptions): Promise<Firing | null> {
  if (usesPostgres()) return (await import("./scheduler.pg")).runScheduleNowPg({ id, actor, clock });
  const firing = await writeTransaction((sqlite) => {
    const schedule = prepare(sqlite, `SELECT ${SCHEDULE_COLUMNS} FROM Schedule WHERE id = ?`).get(id) as ScheduleRow | undefined;
    if (!schedule) return null;
    const now = clock();
    // A manual run's slot is its own instant; a second click in the same millisecond is the same run.
    return fireSlot(sqlite, schedule, { scheduledFor: now, trigger: "manual", now, actor });
  });
  announce(firing);
  return firing;
}
