// Metrics, alerts and the weekly report: query parameters and response shapes.
import { z } from "zod";
import { isCalendarDate } from "./common";

const daySchema = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, "a date as YYYY-MM-DD (or an ISO date-time)")
  .refine(isCalendarDate, "not a real date")
  .transform((value) => value.slice(0, 10));

/** Every metric endpoint takes the same filter: UTC days, inclusive, and an optional agent. */
export const metricsQuerySchema = z.object({
  from: daySchema.optional(),
  to: daySchema.optional(),
  agentId: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9_-]*$/, "not a valid id")
    .optional()
    .transform((value) => value || undefined),
});
export type MetricsQuery = z.infer<typeof metricsQuerySchema>;

export const METRICS_MAX_DAYS = 366;
/** Quantiles come from log-scale buckets (ratio 2^(1/4)); this is their worst relative error. */
export const DURATION_BUCKET_ERROR_PCT = 9.05;

export const rangeSchema = z.object({ from: z.string(), to: z.string(), days: z.number() });

export const taskTotalsSchema = z.object({
  created: z.number(),
  completed: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  /** completed / (completed + failed); cancelled tasks are an operator's call, not an outcome. */
  completionRate: z.number().nullable(),
  failureRate: z.number().nullable(),
});

export const durationStatsSchema = z.object({
  count: z.number(),
  meanMs: z.number().nullable(),
  medianMs: z.number().nullable(),
  p90Ms: z.number().nullable(),
});

export const overviewResponseSchema = z.object({
  range: rangeSchema,
  agentId: z.string().nullable(),
  tasks: taskTotalsSchema,
  durations: durationStatsSchema.extend({ bucketErrorPct: z.number() }),
  throughput: z.object({ completedPerDay: z.number() }),
});
export type MetricsOverview = z.infer<typeof overviewResponseSchema>;

export const alertSchema = z.object({
  id: z.string(),
  scope: z.enum(["swarm", "agent"]),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  windowDays: z.number(),
  threshold: z.number(),
  failureRate: z.number(),
  failed: z.number(),
  total: z.number(),
  firedAt: z.string(),
  resolvedAt: z.string().nullable(),
});
export type AlertDto = z.infer<typeof alertSchema>;
