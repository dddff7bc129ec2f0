// Schedules: cron schedules that create tasks from a template (reference 001, P11).
import { z } from "zod";
import { oneLine } from "./common";
import { MAX_TASK_TITLE_CHARS, taskDescriptionSchema, taskPrioritySchema, taskTagsSchema, taskTypeSchema } from "./tasks";

export const SCHEDULE_TARGET_KINDS = ["agent", "leads", "all", "role", "tag", "pool"] as const;
export const scheduleTargetKindSchema = z.enum(SCHEDULE_TARGET_KINDS);

const fields = {
  name: oneLine(z.string().trim().min(1, "a name is required").max(120, "at most 120 characters")),
  cron: z.string().trim().min(1, "a cron expression is required").max(120, "at most 120 characters"),
  timezone: z.string().trim().min(1, "a time zone is required, e.g. UTC or Europe/Berlin").max(64, "at most 64 characters").default("UTC"),
  enabled: z.boolean().default(false),
  /** Who gets a task: one agent (agentId), the lead(s), every agent, a role or a tag (targetValue), or the pool. Default: agent when agentId is given, else pool. */
  targetKind: scheduleTargetKindSchema.optional(),
  /** The role (lead, worker) or the capability tag. */
  targetValue: z.string().trim().max(64).nullish(),
  agentId: z.string().max(64).nullish(),
  // The title of every task it creates: held to the tasks API's rule for a title (lib/contracts/tasks.ts).
  taskTitle: oneLine(
    z.string().trim().min(1, "a task title is required").max(MAX_TASK_TITLE_CHARS, `at most ${MAX_TASK_TITLE_CHARS} characters`),
  ),
  taskDescription: taskDescriptionSchema.default(""),
  taskType: taskTypeSchema.default("task"),
  taskTags: taskTagsSchema.default([]),
  taskPriority: taskPrioritySchema.default(0),
};

export const createScheduleBodySchema = z.strictObject({ ...fields, templateKey: z.string().max(64).nullish() });
export type CreateScheduleBody = z.infer<typeof createScheduleBodySchema>;

export const patchScheduleBodySchema = z
  .strictObject({
    name: fields.name,
    cron: fields.cron,
    timezone: fields.timezone.unwrap(),
    enabled: z.boolean(),
    targetKind: scheduleTargetKindSchema,
    targetValue: fields.targetValue,
    agentId: fields.agentId,
    taskTitle: fields.taskTitle,
    taskDescription: taskDescriptionSchema,
    taskType: taskTypeSchema,
    taskTags: taskTagsSchema,
    taskPriority: taskPrioritySchema,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, "nothing to change");
export type PatchScheduleBody = z.infer<typeof patchScheduleBodySchema>;

export const cronPreviewQuerySchema = z.object({
  cron: z.string().max(120).default(""),
  timezone: z.string().max(64).default("UTC"),
});

export const scheduleRunTaskSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  finishedAt: z.string().nullable(),
  failureReason: z.string().nullable(),
});

export const scheduleRunSchema = z.object({
  id: z.string(),
  scheduledFor: z.string(),
  firedAt: z.string(),
  trigger: z.enum(["cron", "manual"]),
  /** The first task (older runs had one). */
  taskId: z.string().nullable(),
  tasks: z.array(scheduleRunTaskSchema),
  skips: z.array(z.object({ agentId: z.string().nullable(), agentName: z.string().nullable(), reason: z.string() })),
  /** created: every target got a task; partial: some were skipped; skipped: none got one; failed. */
  status: z.string(),
  error: z.string().nullable(),
});

export const scheduleRunsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** The id of the last run of the previous page (newest first). */
  cursor: z.string().max(64).optional(),
});

export const scheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  templateKey: z.string().nullable(),
  cron: z.string(),
  cronDescription: z.string().nullable(),
  timezone: z.string(),
  enabled: z.boolean(),
  targetKind: scheduleTargetKindSchema,
  targetValue: z.string().nullable(),
  /** "for the lead(s)", "for every agent tagged frontend", ... */
  targetDescription: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  taskTitle: z.string(),
  taskDescription: z.string(),
  taskType: z.string(),
  taskTags: z.array(z.string()),
  taskPriority: z.number(),
  lastRunAt: z.string().nullable(),
  nextRunAt: z.string().nullable(),
  lastTaskId: z.string().nullable(),
  /** The last run's outcome, for the list ("created", "partial", "skipped", "failed"). */
  lastRunStatus: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ScheduleDto = z.infer<typeof scheduleSchema>;
export type ScheduleRunDto = z.infer<typeof scheduleRunSchema>;

export const installTemplatesBodySchema = z.strictObject({
  keys: z.array(z.string().trim().min(1).max(64)).min(1, "name at least one template").max(20),
  enabled: z.boolean().default(true),
});
