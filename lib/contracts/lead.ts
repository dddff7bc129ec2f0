// The lead's view of the swarm over the worker protocol (lead agents only):
// query shapes of /api/worker/swarm/*, shared by the app, the worker's control
// server, the `swarm` CLI and the tests.
import { z } from "zod";
import { isCalendarDate } from "./common";
import { learningCategorySchema } from "./memory";
import { listTasksQuerySchema } from "./tasks";

/** An agent named by its id or its name (the `swarm` CLI speaks names). */
export const agentRefSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "an agent's name or id");

/** A point in time: an ISO date or date-time, or a span back from now ("90m", "24h", "7d"). */
export const timeRefSchema = z
  .string()
  .trim()
  .max(40)
  .refine(
    (value) => /^\d{1,5}[mhdw]$/.test(value) || isCalendarDate(value),
    'a date (2030-01-07, 2030-01-07T09:00:00Z) or a span back from now ("90m", "24h", "7d", "2w")',
  );

const SPAN_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** Epoch ms of a time reference, spans counted back from `now`. */
export function resolveTimeRef(value: string, now: number): number {
  const span = /^(\d{1,5})([mhdw])$/.exec(value);
  if (span) return now - Number(span[1]) * SPAN_MS[span[2] as keyof typeof SPAN_MS];
  return Date.parse(value);
}

/** GET /api/worker/swarm/tasks: the operator list's filters, an agent by name or id, and a time window. */
export const leadTasksQuerySchema = listTasksQuerySchema.omit({ agentId: true }).extend({
  agent: agentRefSchema.optional(),
  /** The task's last activity (finish, else creation) is at or after this. */
  since: timeRefSchema.optional(),
  /** ... and before this. */
  until: timeRefSchema.optional(),
});
export type LeadTasksQuery = z.infer<typeof leadTasksQuerySchema>;

/** Longest output, summary or failure reason a task list carries per task (the single-task read has it all). */
export const LEAD_LIST_TEXT_CHARS = 2_000;

export const leadWindowQuerySchema = z.object({
  agent: agentRefSchema.optional(),
  since: timeRefSchema.optional(),
  until: timeRefSchema.optional(),
});

export const leadReportQuerySchema = z.object({
  /** The last day of the week reported (YYYY-MM-DD, UTC; default today). */
  to: z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "a day as YYYY-MM-DD")
    .refine(isCalendarDate, "not a real date")
    .optional(),
});

export const leadOutcomesQuerySchema = z.object({ agent: agentRefSchema });

/**
 * POST /api/worker/learnings: a learning for one agent (targetAgentId, or
 * targetAgent by name) or for the whole swarm (scope "swarm").
 */
export const leadLearningBodySchema = z
  .strictObject({
    targetAgentId: agentRefSchema.optional(),
    targetAgent: agentRefSchema.optional(),
    scope: z.enum(["agent", "swarm"]).default("agent"),
    category: learningCategorySchema,
    learning: z.string().trim().min(1).max(8000),
    /** Also add a line under "Feedback from Lead" in the target's CLAUDE.md, through its identity rules. */
    addToClaudeMd: z.boolean().default(false),
  })
  .superRefine((body, ctx) => {
    const named = body.targetAgentId ?? body.targetAgent;
    if (body.scope === "agent" && !named) {
      ctx.addIssue({ code: "custom", path: ["targetAgent"], message: "name the agent (targetAgent or targetAgentId), or use scope swarm" });
    }
    if (body.targetAgentId && body.targetAgent) {
      ctx.addIssue({ code: "custom", path: ["targetAgent"], message: "give targetAgentId or targetAgent, not both" });
    }
    if (body.scope === "swarm" && named) {
      ctx.addIssue({ code: "custom", path: ["scope"], message: "a swarm learning has no target agent" });
    }
    if (body.scope === "swarm" && body.addToClaudeMd) {
      ctx.addIssue({ code: "custom", path: ["addToClaudeMd"], message: "CLAUDE.md notes are for one agent" });
    }
  });
export type LeadLearningBody = z.infer<typeof leadLearningBodySchema>;

/** What became of the CLAUDE.md note: the target's identity rules decide. */
export const claudeNoteSchema = z.object({
  status: z.enum(["not_requested", "applied", "pending", "refused"]),
  versionId: z.string().nullable(),
  proposalId: z.string().nullable(),
  message: z.string().nullable(),
});
export type ClaudeNote = z.infer<typeof claudeNoteSchema>;

export const learningResponseSchema = z.object({
  memoryIds: z.array(z.number()),
  targetAgentId: z.string().nullable(),
  scope: z.enum(["agent", "swarm"]),
  /** Kept for older callers: the CLAUDE.md version when the note was applied. */
  claudeVersionId: z.string().nullable(),
  claudeMd: claudeNoteSchema,
});
export type LearningResponse = z.infer<typeof learningResponseSchema>;
