// Schedules: list, read, create, change and delete (Prisma, audited in the same
// transaction). Firing lives in scheduler.ts.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { CreateScheduleBody, PatchScheduleBody, ScheduleDto, ScheduleRunDto } from "@/lib/contracts/schedules";
import { db, type Tx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { Schedule, ScheduleRun } from "@/lib/generated/prisma/client";
import { type Clock, systemClock } from "./clock";
import { cronProblem, describeCron, nextSlot } from "./cron";
import { findTemplate } from "./templates";

type WithAgent = Schedule & { agent: { name: string; displayName: string } | null };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function parseTags(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function toScheduleDto(row: WithAgent): ScheduleDto {
  return {
    id: row.id,
    name: row.name,
    templateKey: row.templateKey,
    cron: row.cron,
    cronDescription: describeCron(row.cron),
    timezone: row.timezone,
    enabled: row.enabled,
    agentId: row.agentId,
    agentName: row.agent ? row.agent.displayName || row.agent.name : null,
    taskTitle: row.taskTitle,
    taskDescription: row.taskDescription,
    taskType: row.taskType,
    taskTags: parseTags(row.taskTags),
    taskPriority: row.taskPriority,
    lastRunAt: iso(row.lastRunAt),
    nextRunAt: iso(row.nextRunAt),
    lastTaskId: row.lastTaskId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toRunDto(run: ScheduleRun): ScheduleRunDto {
  return {
    id: run.id,
    scheduledFor: run.scheduledFor.toISOString(),
    firedAt: run.firedAt.toISOString(),
    trigger: run.trigger === "manual" ? "manual" : "cron",
    taskId: run.taskId,
    status: run.status,
    error: run.error,
  };
}

const include = { agent: { select: { name: true, displayName: true } } } as const;

function assertCron(cron: string, timezone: string) {
  const problem = cronProblem(cron, timezone);
  if (problem) {
    const path = problem.startsWith("Unknown time zone") ? "timezone" : "cron";
    throw new ApiError("validation_failed", problem, [{ path, message: problem }]);
  }
}

async function assertAgent(tx: Tx, agentId: string | null | undefined) {
  if (!agentId) return;
  const agent = await tx.agent.findUnique({ where: { id: agentId }, select: { archivedAt: true } });
  if (!agent || agent.archivedAt)
    throw new ApiError("validation_failed", "The target agent does not exist", [{ path: "agentId", message: "unknown agent" }]);
}

export async function listSchedules(): Promise<ScheduleDto[]> {
  const rows = await db.schedule.findMany({ include, orderBy: [{ enabled: "desc" }, { name: "asc" }] });
  return rows.map(toScheduleDto);
}

export async function getSchedule({ id }: { id: string }): Promise<{ schedule: ScheduleDto; runs: ScheduleRunDto[] }> {
  const row = await db.schedule.findUnique({ where: { id }, include });
  if (!row) throw notFound("Schedule");
  const runs = await db.scheduleRun.findMany({ where: { scheduleId: id }, orderBy: { firedAt: "desc" }, take: 20 });
  return { schedule: toScheduleDto(row), runs: runs.map(toRunDto) };
}

export async function createSchedule({ input, actor, clock = systemClock }: { input: CreateScheduleBody; actor: Actor; clock?: Clock }) {
  assertCron(input.cron, input.timezone);
  if (input.templateKey && !findTemplate(input.templateKey)) {
    throw new ApiError("validation_failed", "Unknown template", [{ path: "templateKey", message: "unknown template" }]);
  }
  return db.$transaction(async (tx) => {
    await assertAgent(tx, input.agentId);
    const row = await tx.schedule.create({
      data: {
        name: input.name,
        templateKey: input.templateKey ?? null,
        cron: input.cron,
        timezone: input.timezone,
        enabled: input.enabled,
        agentId: input.agentId ?? null,
        taskTitle: input.taskTitle,
        taskDescription: input.taskDescription,
        taskType: input.taskType,
        taskTags: JSON.stringify(input.taskTags),
        taskPriority: input.taskPriority,
        nextRunAt: input.enabled ? new Date(nextSlot(input.cron, input.timezone, clock())) : null,
      },
      include,
    });
    await appendAudit(tx, {
      actor,
      action: "schedule.created",
      targetType: "schedule",
      targetId: row.id,
      agentId: row.agentId,
      data: { name: row.name, cron: row.cron, timezone: row.timezone, enabled: row.enabled, templateKey: row.templateKey },
    });
    return toScheduleDto(row);
  });
}

export async function updateSchedule({
  id,
  input,
  actor,
  clock = systemClock,
}: {
  id: string;
  input: PatchScheduleBody;
  actor: Actor;
  clock?: Clock;
}) {
  return db.$transaction(async (tx) => {
    const current = await tx.schedule.findUnique({ where: { id } });
    if (!current) throw notFound("Schedule");
    const cron = input.cron ?? current.cron;
    const timezone = input.timezone ?? current.timezone;
    const enabled = input.enabled ?? current.enabled;
    assertCron(cron, timezone);
    if (input.agentId !== undefined) await assertAgent(tx, input.agentId);
    // The next slot counts from now when the timing changes or the schedule is switched on.
    const retime = input.cron !== undefined || input.timezone !== undefined || (input.enabled === true && !current.enabled);
    const nextRunAt = !enabled ? null : retime || !current.nextRunAt ? new Date(nextSlot(cron, timezone, clock())) : current.nextRunAt;
    const row = await tx.schedule.update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        cron,
        timezone,
        enabled,
        ...(input.agentId !== undefined ? { agentId: input.agentId ?? null } : {}),
        ...(input.taskTitle !== undefined ? { taskTitle: input.taskTitle } : {}),
        ...(input.taskDescription !== undefined ? { taskDescription: input.taskDescription } : {}),
        ...(input.taskType !== undefined ? { taskType: input.taskType } : {}),
        ...(input.taskTags !== undefined ? { taskTags: JSON.stringify(input.taskTags) } : {}),
        ...(input.taskPriority !== undefined ? { taskPriority: input.taskPriority } : {}),
        nextRunAt,
      },
      include,
    });
    const action =
      input.enabled !== undefined && input.enabled !== current.enabled
        ? enabled
          ? "schedule.enabled"
          : "schedule.disabled"
        : "schedule.updated";
    await appendAudit(tx, {
      actor,
      action,
      targetType: "schedule",
      targetId: id,
      agentId: row.agentId,
      data: { changed: Object.keys(input) },
    });
    return toScheduleDto(row);
  });
}

export async function deleteSchedule({ id, actor }: { id: string; actor: Actor }) {
  await db.$transaction(async (tx) => {
    const current = await tx.schedule.findUnique({ where: { id } });
    if (!current) throw notFound("Schedule");
    await tx.schedule.delete({ where: { id } });
    await appendAudit(tx, {
      actor,
      action: "schedule.deleted",
      targetType: "schedule",
      targetId: id,
      agentId: current.agentId,
      data: { name: current.name },
    });
  });
}
