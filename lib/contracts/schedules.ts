// Schedules: cron schedules that create tasks from a template (reference 001, P11).
import { z } from "zod";

const tagSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "lower-case letters, digits, '.', '_' and '-'");

const fields = {
  name: z.string().trim().min(1, "a name is required").max(120),
  cron: z.string().trim().min(1, "a cron expression is required").max(120),
  timezone: z.string().trim().min(1).max(64).default("UTC"),
  enabled: z.boolean().default(false),
  agentId: z.string().max(64).nullish(),
  taskTitle: z.string().trim().min(1, "a task title is required").max(200),
  taskDescription: z
    .string()
    .max(64 * 1024)
    .default(""),
  taskType: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[a-z][a-z0-9_-]*$/, "lower-case letters, digits, '_' and '-', starting with a letter")
    .default("task"),
  taskTags: z.array(tagSchema).max(20).default([]),
  taskPriority: z.number().int().min(-100).max(100).default(0),
};

export const createScheduleBodySchema = z.strictObject({ ...fields, templateKey: z.string().max(64).nullish() });
export type CreateScheduleBody = z.infer<typeof createScheduleBodySchema>;

export const patchScheduleBodySchema = z
  .strictObject({
    name: fields.name,
    cron: fields.cron,
    timezone: z.string().trim().min(1).max(64),
    enabled: z.boolean(),
    agentId: fields.agentId,
    taskTitle: fields.taskTitle,
    taskDescription: z.string().max(64 * 1024),
    taskType: fields.taskType.unwrap(),
    taskTags: z.array(tagSchema).max(20),
    taskPriority: z.number().int().min(-100).max(100),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, "nothing to change");
export type PatchScheduleBody = z.infer<typeof patchScheduleBodySchema>;

export const cronPreviewQuerySchema = z.object({
  cron: z.string().max(120).default(""),
  timezone: z.string().max(64).default("UTC"),
});

export const scheduleRunSchema = z.object({
  id: z.string(),
  scheduledFor: z.string(),
  firedAt: z.string(),
  trigger: z.enum(["cron", "manual"]),
  taskId: z.string().nullable(),
  status: z.string(),
  error: z.string().nullable(),
});

export const scheduleSchema = z.object({
  id: z.string(),
  name: z.string(),
  templateKey: z.string().nullable(),
  cron: z.string(),
  cronDescription: z.string().nullable(),
  timezone: z.string(),
  enabled: z.boolean(),
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
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ScheduleDto = z.infer<typeof scheduleSchema>;
export type ScheduleRunDto = z.infer<typeof scheduleRunSchema>;
