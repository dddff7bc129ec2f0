// Tasks: the operator API and the worker protocol's task calls (docs/architecture.md).
import { z } from "zod";
import { oneLine } from "./common";
import { agentDecisionSchema } from "./identity";

export const TASK_STATUSES = ["unassigned", "offered", "pending", "in_progress", "completed", "failed", "cancelled"] as const;
export const taskStatusSchema = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof taskStatusSchema>;
export const FINISHED_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

/** What a tag may be (after trimming and lower-casing): a letter or digit, then letters, digits, '.', '_' and '-'. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_TAG_CHARS = 40;
export const TAG_RULE = "lower-case letters, digits, '.', '_' and '-' (no spaces), starting with a letter or digit";

export const tagSchema = z
  .string()
  .trim()
  .min(1, "a tag cannot be empty")
  .max(MAX_TAG_CHARS, `a tag has at most ${MAX_TAG_CHARS} characters`)
  .regex(TAG_PATTERN, TAG_RULE);

// A task's fields, with messages an operator can act on (the forms show them under
// their fields); schedules take the same ones for the tasks they create.
export const MAX_TASK_TITLE_CHARS = 200;
export const MAX_TASK_TYPE_CHARS = 40;
export const MAX_TASK_TAGS = 20;
export const TASK_PRIORITY_RANGE = { min: -100, max: 100 } as const;
export const taskTypeSchema = z
  .string()
  .trim()
  .min(1, "a type is required (e.g. task)")
  .max(MAX_TASK_TYPE_CHARS, `at most ${MAX_TASK_TYPE_CHARS} characters`)
  .regex(/^[a-z][a-z0-9_-]*$/, "lower-case letters, digits, '_' and '-' (no spaces), starting with a letter, e.g. bugfix");
export const taskTagsSchema = z.array(tagSchema).max(MAX_TASK_TAGS, `at most ${MAX_TASK_TAGS} tags`);
export const taskPrioritySchema = z
  .number({ error: "a whole number from -100 to 100" })
  .int("a whole number from -100 to 100")
  .min(TASK_PRIORITY_RANGE.min, "at least -100 (-100 … 100, higher first)")
  .max(TASK_PRIORITY_RANGE.max, "at most 100 (-100 … 100, higher first)");
const MAX_DESCRIPTION_CHARS = 64 * 1024;
export const taskDescriptionSchema = z.string().max(MAX_DESCRIPTION_CHARS, "at most 64 KB of text");

/** Identity kinds an operator may let a task's agent change directly (each has its rule in lib/identity/rules.ts). */
export const GRANTABLE_KINDS = ["SOUL", "IDENTITY", "USER", "CLAUDE", "SETUP_SCRIPT", "TOOLS", "HEARTBEAT"] as const;
export const identityGrantSchema = z
  .array(z.enum(GRANTABLE_KINDS, { message: `grantable kinds: ${GRANTABLE_KINDS.join(", ")} (AGENT, CAPABILITIES and BOOTSTRAP never)` }))
  .max(GRANTABLE_KINDS.length)
  .transform((kinds) => [...new Set(kinds)]);

/** Most output a task keeps (the worker bounds what it sends to this). */
export const MAX_TASK_OUTPUT_CHARS = 256 * 1024;

export const createTaskBodySchema = z.strictObject({
  title: oneLine(z.string().trim().min(1, "a title is required").max(MAX_TASK_TITLE_CHARS, `at most ${MAX_TASK_TITLE_CHARS} characters`)),
  description: taskDescriptionSchema.default(""),
  type: taskTypeSchema.default("task"),
  tags: taskTagsSchema.default([]),
  priority: taskPrioritySchema.default(0),
  agentId: z.string().max(64).nullish(),
  parentTaskId: z.string().max(64).nullish(),
  /** The task's own time limit (minutes); the worker stops the agent after it. Unset: the agent's capabilities, else the worker's default. */
  timeLimitMinutes: z
    .number()
    .min(0.05, "at least 0.05 (3 seconds)")
    .max(7 * 24 * 60, "at most 10080 (a week)")
    .nullish(),
  /** An explicit request: the agent may change these identity files directly while it runs this task. */
  identityGrant: identityGrantSchema.default([]),
});
export type CreateTaskBody = z.infer<typeof createTaskBodySchema>;

export const listTasksQuerySchema = z.object({
  status: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(",") : undefined))
    .pipe(z.array(taskStatusSchema).optional()),
  agentId: z.string().max(64).optional(),
  // A filter is normalised as tags are stored (trimmed, lower-case): ?tag=UI finds "ui".
  tag: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(tagSchema)
    .optional(),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional(),
});

export const patchTaskBodySchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("cancel"), reason: z.string().trim().max(1000).optional() }),
  z.strictObject({ action: z.literal("reassign"), agentId: z.string().min(1).max(64) }),
  z.strictObject({ action: z.literal("unassign") }),
  z.strictObject({ action: z.literal("retry") }),
  z.strictObject({ action: z.literal("grant"), identityGrant: identityGrantSchema }),
]);
export type PatchTaskBody = z.infer<typeof patchTaskBodySchema>;

export const taskSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  type: z.string(),
  tags: z.array(z.string()),
  priority: z.number(),
  status: taskStatusSchema,
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  parentTaskId: z.string().nullable(),
  attempts: z.number(),
  // Optional on the wire so that a worker and an app of different versions still understand each other.
  /** Attempts allowed (claims that end in a give-back or a stall count); the last one fails the task. */
  maxAttempts: z.number().optional(),
  /** After a give-back: the agent that gave it back waits until then before it gets it again. */
  retryAt: z.string().nullable().optional(),
  /** The task's own time limit; null: the agent's capabilities.yaml max_task_minutes, else the worker's default. */
  timeLimitMinutes: z.number().nullable().optional(),
  /** The agent's last sign of life (output, tool use, file change) as its worker reported it. */
  lastActivityAt: z.string().nullable().optional(),
  lastActivity: z.string().nullable().optional(),
  claimedAt: z.string().nullable(),
  heartbeatAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  progress: z.string().nullable(),
  output: z.string().nullable(),
  summary: z.string().nullable(),
  failureReason: z.string().nullable(),
  /** Identity kinds the task's agent may change directly (an operator's grant, or the bootstrap ritual's). */
  identityGrant: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TaskDto = z.infer<typeof taskSchema>;

export const taskEventSchema = z.object({
  id: z.number(),
  type: z.string(),
  fromStatus: z.string().nullable(),
  toStatus: z.string().nullable(),
  message: z.string(),
  data: z.unknown(),
  actorType: z.string(),
  actorId: z.string().nullable(),
  createdAt: z.string(),
});
export type TaskEventDto = z.infer<typeof taskEventSchema>;

export const listTasksResponseSchema = z.object({ tasks: z.array(taskSchema), nextCursor: z.string().nullable() });
export const taskWithEventsResponseSchema = z.object({ task: taskSchema, events: z.array(taskEventSchema) });

// ------------------------------------------------------------ worker protocol

export const MAX_POLL_WAIT_MS = 30_000;
export const pollQuerySchema = z.object({ waitMs: z.coerce.number().int().min(0).max(MAX_POLL_WAIT_MS).default(0) });
export const pollResponseSchema = z.object({ task: taskSchema });

export const bundleFileSchema = z.object({ kind: z.string(), path: z.string(), content: z.string(), versionId: z.string().nullable() });
export const bundleMemorySchema = z.object({
  id: z.number(),
  name: z.string(),
  content: z.string(),
  score: z.number(),
  scope: z.string(),
  source: z.string(),
});
export const bundleResponseSchema = z.object({
  task: taskSchema,
  files: z.array(bundleFileSchema),
  setupScript: z.object({ global: z.string(), agent: z.string(), composed: z.string() }),
  systemPrompt: z.string(),
  taskPrompt: z.string(),
  memories: z.array(bundleMemorySchema),
  /** Decisions on the agent's proposals since its previous task (also summed up in taskPrompt). */
  decisions: z.array(agentDecisionSchema).default([]),
});
export type Bundle = z.infer<typeof bundleResponseSchema>;

export const heartbeatBodySchema = z.strictObject({
  progress: z.string().max(4000).optional(),
  /** The agent's last sign of life the worker saw (output, tool use, file change): shown on the task (an extension of the protocol). */
  lastActivity: z.strictObject({ at: z.iso.datetime(), what: z.string().trim().min(1).max(300) }).optional(),
});
/** `cancelled` is true when the worker must stop: the task was cancelled, or taken back (stall, operator). */
export const heartbeatResponseSchema = z.object({ cancelled: z.boolean(), status: taskStatusSchema });

/**
 * The session the task's summary (reference 001, P4) is made from: Claude Code's own
 * session transcript, or another agent's captured output (an extension of the
 * complete and fail bodies; never stored as such, only what the summary model makes of it).
 */
export const sessionTranscriptSchema = z.strictObject({
  source: z.enum(["claude_transcript", "output"]),
  transcript: z.string().max(64 * 1024),
});
export type SessionTranscriptBody = z.infer<typeof sessionTranscriptSchema>;

export const completeBodySchema = z.strictObject({
  output: z.string().max(MAX_TASK_OUTPUT_CHARS),
  summary: z
    .string()
    .max(16 * 1024)
    .optional(),
  session: sessionTranscriptSchema.optional(),
});
export const failBodySchema = z.strictObject({
  failureReason: z
    .string()
    .trim()
    .min(1, "a failure reason is required")
    .max(16 * 1024),
  output: z.string().max(MAX_TASK_OUTPUT_CHARS).optional(),
  session: sessionTranscriptSchema.optional(),
});
/** Gives a claimed task back (the worker is stopping): to its agent or the pool, attempt + 1. */
export const releaseBodySchema = z.strictObject({ reason: z.string().trim().min(1).max(4000) });

/**
 * A worker files a task itself (idle improvement proposals): no agent, status
 * `offered` (no worker claims it) until an operator accepts it into the pool or
 * assigns it.
 */
export const workerCreateTaskBodySchema = z.strictObject({
  title: oneLine(z.string().trim().min(1).max(200)),
  description: z
    .string()
    .max(64 * 1024)
    .default(""),
  tags: z.array(tagSchema).max(20).default([]),
  type: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[a-z][a-z0-9_-]*$/)
    .optional(),
});
/** The worker's task answers (complete, fail, release, create): the task as it is now. */
export const workerTaskResponseSchema = z.object({ task: taskSchema });
