// Schedules: list, read, create, change and delete (Prisma, audited in the same
// transaction). Firing lives in scheduler.ts.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import {
  type CreateScheduleBody,
  type PatchScheduleBody,
  SCHEDULE_TARGET_KINDS,
  type ScheduleDto,
  type ScheduleRunDto,
} from "@/lib/contracts/schedules";
import { db, type Tx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { Schedule, ScheduleRun } from "@/lib/generated/prisma/client";
import { type Clock, systemClock } from "./clock";
import { cronProblem, cronProblemField, describeCron, intervalProblem, nextSlot } from "./cron";
import { currentMinIntervalMs } from "./settings";
import { describeTarget } from "./targets";
import { findTemplate } from "./templates";

type WithAgent = Schedule & { agent: { name: string; displayName: string } | null; runs?: Array<{ status: string }> };

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
  const agentName = row.agent ? row.agent.displayName || row.agent.name : null;
  return {
    id: row.id,
    name: row.name,
    templateKey: row.templateKey,
    cron: row.cron,
    cronDescription: describeCron(row.cron),
    timezone: row.timezone,
    enabled: row.enabled,
    targetKind: (SCHEDULE_TARGET_KINDS as readonly string[]).includes(row.targetKind)
      ? (row.targetKind as ScheduleDto["targetKind"])
      : "pool",
    targetValue: row.targetValue,
    targetDescription: describeTarget(row.targetKind, row.targetValue, agentName),
    agentId: row.agentId,
    agentName,
    taskTitle: row.taskTitle,
    taskDescription: row.taskDescription,
    taskType: row.taskType,
    taskTags: parseTags(row.taskTags),
    taskPriority: row.taskPriority,
    lastRunAt: iso(row.lastRunAt),
    nextRunAt: iso(row.nextRunAt),
    lastTaskId: row.lastTaskId,
    lastRunStatus: row.runs?.[0]?.status ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

type RunTask = ScheduleRunDto["tasks"][number];

export function toRunDto(run: ScheduleRun, tasks: Map<string, RunTask>): ScheduleRunDto {
  const ids = parseJson<string[]>(run.taskIds, []);
  return {
    id: run.id,
    scheduledFor: run.scheduledFor.toISOString(),
    firedAt: run.firedAt.toISOString(),
    trigger: run.trigger === "manual" ? "manual" : "cron",
    taskId: run.taskId,
    tasks: (ids.length ? ids : run.taskId ? [run.taskId] : []).map(
      (id) =>
        tasks.get(id) ?? {
          id,
          title: "(deleted task)",
          status: "deleted",
          agentId: null,
          agentName: null,
          finishedAt: null,
          failureReason: null,
        },
    ),
    skips: parseJson<ScheduleRunDto["skips"]>(run.skips, []),
    status: run.status,
    error: run.error,
  };
}

/** The runs with their tasks' current state (the history page, "Last run"). */
async function withTasks(runs: ScheduleRun[]): Promise<ScheduleRunDto[]> {
  const ids = runs.flatMap((run) => {
    const list = parseJson<string[]>(run.taskIds, []);
    return list.length ? list : run.taskId ? [run.taskId] : [];
  });
  const rows = ids.length
    ? await db.task.findMany({
        where: { id: { in: ids } },
        select: {
          id: true,
          title: true,
          status: true,
          agentId: true,
          finishedAt: true,
          failureReason: true,
          agent: { select: { name: true } },
        },
      })
    : [];
  const tasks = new Map<string, RunTask>(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        title: row.title,
        status: row.status,
        agentId: row.agentId,
        agentName: row.agent?.name.replace(/~archived-.*$/, "") ?? null,
        finishedAt: row.finishedAt?.toISOString() ?? null,
        failureReason: row.failureReason?.slice(0, 500) ?? null,
      },
    ]),
  );
  return runs.map((run) => toRunDto(run, tasks));
}

const include = {
  agent: { select: { name: true, displayName: true } },
  runs: { select: { status: true }, orderBy: { firedAt: "desc" }, take: 1 },
} as const;

/** `minIntervalMs`: currentMinIntervalMs(), read before any transaction (on SQLite it needs the one connection). */
function assertCron(cron: string, timezone: string, now: number, minIntervalMs: number) {
  const problem = cronProblem(cron, timezone) ?? intervalProblem(cron, timezone, minIntervalMs, now);
  if (problem) {
    const path = cronProblemField(timezone);
    throw new ApiError("validation_failed", problem, [{ path, message: problem }]);
  }
}

const invalid = (path: string, message: string) => new ApiError("validation_failed", message, [{ path, message }]);
const TAG = /^[a-z0-9][a-z0-9._-]*$/;

type Target = { targetKind: ScheduleDto["targetKind"]; targetValue: string | null; agentId: string | null };

/** The target a create or change asks for, checked (an agent that exists, a real role, a valid tag). */
async function resolveTarget(
  tx: Tx,
  input: { targetKind?: string; targetValue?: string | null; agentId?: string | null },
): Promise<Target> {
  const kind = (input.targetKind ?? (input.agentId ? "agent" : "pool")) as Target["targetKind"];
  const value = input.targetValue?.trim() || null;
  if (kind === "agent") {
    if (!input.agentId) throw invalid("agentId", "A schedule for one agent names the agent (agentId)");
    const agent = await tx.agent.findUnique({ where: { id: input.agentId }, select: { archivedAt: true } });
    if (!agent || agent.archivedAt) throw invalid("agentId", "The target agent does not exist");
    return { targetKind: kind, targetValue: null, agentId: input.agentId };
  }
  if (input.agentId) throw invalid("agentId", `A schedule ${describeTarget(kind, value, null)} has no single agent`);
  if (kind === "role") {
    if (value !== "lead" && value !== "worker") throw invalid("targetValue", "The role is lead or worker");
    return { targetKind: kind, targetValue: value, agentId: null };
  }
  if (kind === "tag") {
    if (!value || !TAG.test(value)) throw invalid("targetValue", "A tag: lower-case letters, digits, '.', '_' and '-'");
    return { targetKind: kind, targetValue: value, agentId: null };
  }
  if (value) throw invalid("targetValue", `A schedule ${describeTarget(kind, null, null)} takes no role or tag`);
  return { targetKind: kind, targetValue: null, agentId: null };
}

export async function listSchedules(): Promise<ScheduleDto[]> {
  const rows = await db.schedule.findMany({ include, orderBy: [{ enabled: "desc" }, { name: "asc" }] });
  return rows.map(toScheduleDto);
}

export async function getSchedule({ id }: { id: string }): Promise<{ schedule: ScheduleDto; runs: ScheduleRunDto[] }> {
  const row = await db.schedule.findUnique({ where: { id }, include });
  if (!row) throw notFound("Schedule");
  const { runs } = await listScheduleRuns({ id, limit: 20 });
  return { schedule: toScheduleDto(row), runs };
}

/** A schedule's runs, newest first, with their tasks; the cursor is the last run id of the previous page. */
export async function listScheduleRuns({ id, limit, cursor }: { id: string; limit: number; cursor?: string }) {
  if (!(await db.schedule.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Schedule");
  if (cursor && !(await db.scheduleRun.findFirst({ where: { id: cursor, scheduleId: id }, select: { id: true } }))) {
    throw new ApiError("bad_request", "The cursor does not name a run of this schedule");
  }
  const rows = await db.scheduleRun.findMany({
    where: { scheduleId: id },
    orderBy: [{ firedAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, limit);
  return { runs: await withTasks(page), nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}

export async function createSchedule({ input, actor, clock = systemClock }: { input: CreateScheduleBody; actor: Actor; clock?: Clock }) {
  assertCron(input.cron, input.timezone, clock(), await currentMinIntervalMs());
  if (input.templateKey && !findTemplate(input.templateKey)) {
    throw new ApiError("validation_failed", "Unknown template", [{ path: "templateKey", message: "unknown template" }]);
  }
  return db.$transaction(async (tx) => {
    const target = await resolveTarget(tx, input);
    const row = await tx.schedule.create({
      data: {
        name: input.name,
        templateKey: input.templateKey ?? null,
        cron: input.cron,
        timezone: input.timezone,
        enabled: input.enabled,
        ...target,
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
      data: {
        name: row.name,
        cron: row.cron,
        timezone: row.timezone,
        enabled: row.enabled,
        templateKey: row.templateKey,
        target: describeTarget(row.targetKind, row.targetValue, row.agent?.name ?? null),
      },
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
  const retimed = input.cron !== undefined || input.timezone !== undefined;
  // Read outside the transaction: inside it, on SQLite, it would wait for the connection the transaction holds.
  const minIntervalMs = retimed ? await currentMinIntervalMs() : 0;
  return db.$transaction(async (tx) => {
    const current = await tx.schedule.findUnique({ where: { id } });
    if (!current) throw notFound("Schedule");
    const cron = input.cron ?? current.cron;
    const timezone = input.timezone ?? current.timezone;
    const enabled = input.enabled ?? current.enabled;
    if (retimed) assertCron(cron, timezone, clock(), minIntervalMs);
    const retarget = input.targetKind !== undefined || input.targetValue !== undefined || input.agentId !== undefined;
    const kind = input.targetKind ?? (input.agentId !== undefined ? (input.agentId ? "agent" : "pool") : current.targetKind);
    const keeps = kind === current.targetKind;
    const target = retarget
      ? await resolveTarget(tx, {
          targetKind: kind,
          targetValue: input.targetValue !== undefined ? input.targetValue : keeps ? current.targetValue : null,
          agentId: input.agentId !== undefined ? input.agentId : keeps ? current.agentId : null,
        })
      : null;
    if (!target && enabled && current.targetKind === "agent" && current.agentId) {
      // Archiving an agent switches its schedules off (archiveAgent in lib/agents/agents.ts); they stay off until aimed elsewhere.
      const agent = await tx.agent.findUnique({ where: { id: current.agentId }, select: { archivedAt: true } });
      if (!agent || agent.archivedAt) {
        throw new ApiError(
          "conflict",
          "The schedule's agent was archived; aim it at another agent, a role, a tag or the pool to run it again",
          {
            agentId: current.agentId,
          },
        );
      }
    }
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
        ...(target ?? {}),
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
