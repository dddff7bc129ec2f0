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
import { type Actor, appendAuditSync, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, writeTransaction } from "@/lib/db";
import { recordTaskRollup } from "@/lib/metrics/rollup";
import { announceTasks } from "@/lib/tasks/dispatch";
import { type Clock, systemClock } from "./clock";
import { latestSlotAtOrBefore, nextSlot } from "./cron";
import { newId } from "./ids";

export type ScheduleRow = {
  id: string;
  name: string;
  cron: string;
  timezone: string;
  enabled: number;
  agentId: string | null;
  taskTitle: string;
  taskDescription: string;
  taskType: string;
  taskTags: string;
  taskPriority: number;
  nextRunAt: number | null;
};

const SCHEDULE_COLUMNS =
  "id, name, cron, timezone, enabled, agentId, taskTitle, taskDescription, taskType, taskTags, taskPriority, nextRunAt";

export type Firing = {
  runId: string;
  scheduleId: string;
  agentId: string | null;
  scheduledFor: number;
  taskId: string | null;
  status: "created" | "failed";
  error?: string;
};

/**
 * Fires one slot of a schedule inside the caller's write transaction. Returns null
 * when the slot was already fired (by this or another process).
 */
export function fireSlot(
  sqlite: Database.Database,
  schedule: ScheduleRow,
  { scheduledFor, trigger, now, actor = SYSTEM_ACTOR }: { scheduledFor: number; trigger: "cron" | "manual"; now: number; actor?: Actor },
): Firing | null {
  const runId = newId();
  const claimed = prepare(
    sqlite,
    `INSERT INTO ScheduleRun (id, scheduleId, scheduledFor, firedAt, trigger, status) VALUES (?, ?, ?, ?, ?, 'created')
     ON CONFLICT(scheduleId, scheduledFor) DO NOTHING`,
  ).run(runId, schedule.id, scheduledFor, now, trigger);
  if (claimed.changes === 0) return null;

  const agent = schedule.agentId
    ? (prepare(sqlite, "SELECT id, archivedAt FROM Agent WHERE id = ?").get(schedule.agentId) as
        | { id: string; archivedAt: number | null }
        | undefined)
    : undefined;
  if (schedule.agentId && (!agent || agent.archivedAt !== null)) {
    const error = "The target agent is archived; no task was created";
    prepare(sqlite, "UPDATE ScheduleRun SET status = 'failed', error = ? WHERE id = ?").run(error, runId);
    appendAuditSync(sqlite, {
      actor,
      action: "schedule.fire_failed",
      targetType: "schedule",
      targetId: schedule.id,
      agentId: schedule.agentId,
      data: { runId, scheduledFor: new Date(scheduledFor).toISOString(), trigger, error },
    });
    return { runId, scheduleId: schedule.id, agentId: schedule.agentId, scheduledFor, taskId: null, status: "failed", error };
  }

  const taskId = newId();
  const status = schedule.agentId ? "pending" : "unassigned";
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
    status,
    agentId: schedule.agentId,
    scheduleId: schedule.id,
    now,
  });
  prepare(
    sqlite,
    `INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, message, data, actorType, actorId, createdAt)
     VALUES (?, 'created', NULL, ?, ?, ?, ?, ?, ?)`,
  ).run(
    taskId,
    status,
    `Created by schedule "${schedule.name}" (${trigger === "manual" ? "run now" : "cron"})`,
    JSON.stringify({ scheduleId: schedule.id, runId, scheduledFor: new Date(scheduledFor).toISOString() }),
    actor.type,
    actor.id,
    now,
  );
  recordTaskRollup(sqlite, { kind: "created", agentId: schedule.agentId, at: now });
  prepare(sqlite, "UPDATE ScheduleRun SET taskId = ? WHERE id = ?").run(taskId, runId);
  prepare(sqlite, "UPDATE Schedule SET lastRunAt = ?, lastTaskId = ?, updatedAt = ? WHERE id = ?").run(now, taskId, now, schedule.id);
  appendAuditSync(sqlite, {
    actor,
    action: "task.created",
    targetType: "task",
    targetId: taskId,
    agentId: schedule.agentId,
    data: { title: schedule.taskTitle, status, scheduleId: schedule.id },
  });
  appendAuditSync(sqlite, {
    actor,
    action: "schedule.fired",
    targetType: "schedule",
    targetId: schedule.id,
    agentId: schedule.agentId,
    data: { runId, taskId, trigger, scheduledFor: new Date(scheduledFor).toISOString() },
  });
  return { runId, scheduleId: schedule.id, agentId: schedule.agentId, scheduledFor, taskId, status: "created" };
}

/** Fires every enabled schedule whose nextRunAt has come; gives a nextRunAt to enabled schedules without one. */
export async function runDueSchedules({ clock = systemClock }: { clock?: Clock } = {}): Promise<Firing[]> {
  const now = clock();
  const firings = await writeTransaction((sqlite) => {
    const firings: Firing[] = [];
    const due = prepare(
      sqlite,
      `SELECT ${SCHEDULE_COLUMNS} FROM Schedule WHERE enabled = 1 AND (nextRunAt IS NULL OR nextRunAt <= ?) ORDER BY nextRunAt`,
    ).all(now) as ScheduleRow[];
    for (const schedule of due) {
      let next: number | null = null;
      try {
        next = nextSlot(schedule.cron, schedule.timezone, now);
      } catch (error) {
        console.error(`[swarmdeck] schedule ${schedule.id} has an unusable cron expression:`, error);
      }
      if (schedule.nextRunAt !== null) {
        // The latest slot that has come (several missed slots fire once, as this one).
        const latest = latestSlotAtOrBefore(schedule.cron, schedule.timezone, now);
        const slot = latest !== null && latest >= schedule.nextRunAt ? latest : schedule.nextRunAt;
        const firing = fireSlot(sqlite, schedule, { scheduledFor: slot, trigger: "cron", now });
        if (firing) firings.push(firing);
      }
      prepare(sqlite, "UPDATE Schedule SET nextRunAt = ?, updatedAt = ? WHERE id = ?").run(next, now, schedule.id);
    }
    return firings;
  });
  for (const firing of firings) if (firing.taskId) announceTasks({ agentId: firing.agentId });
  return firings;
}

/** POST /api/v1/schedules/{id}/run: one firing now, outside the cron slots (nextRunAt is unchanged). */
export async function runScheduleNow({
  id,
  actor,
  clock = systemClock,
}: {
  id: string;
  actor: Actor;
  clock?: Clock;
}): Promise<Firing | null> {
  const firing = await writeTransaction((sqlite) => {
    const schedule = prepare(sqlite, `SELECT ${SCHEDULE_COLUMNS} FROM Schedule WHERE id = ?`).get(id) as ScheduleRow | undefined;
    if (!schedule) return null;
    const now = clock();
    // A manual run's slot is its own instant; a second click in the same millisecond is the same run.
    return fireSlot(sqlite, schedule, { scheduledFor: now, trigger: "manual", now, actor });
  });
  // Wake the waiting polls of the agent (or of the pool) after the commit.
  if (firing?.taskId) announceTasks({ agentId: firing.agentId });
  return firing;
}
