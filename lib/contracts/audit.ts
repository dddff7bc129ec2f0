import { z } from "zod";

export const auditEventSchema = z.object({
  id: z.number(),
  createdAt: z.string(),
  actorType: z.string(),
  actorId: z.string().nullable(),
  actorLabel: z.string(),
  action: z.string(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  agentId: z.string().nullable(),
  data: z.unknown(),
  hash: z.string(),
  /** The target as a person reads it (lib/audit/audit-targets.ts): a name, and the page where it lives. */
  target: z.object({ label: z.string().nullable(), href: z.string().nullable(), agentName: z.string().nullable() }),
});
export type AuditTarget = z.infer<typeof auditEventSchema>["target"];
export type AuditEventDto = z.infer<typeof auditEventSchema>;

export const listAuditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** Events older than this id (the next page). */
  before: z.coerce.number().int().positive().optional(),
  action: z.string().max(64).optional(),
  agentId: z.string().max(64).optional(),
  /** Events about one thing (an agent, a token, a schedule, ...). */
  targetId: z.string().max(512).optional(),
});

export const listAuditResponseSchema = z.object({
  events: z.array(auditEventSchema),
  nextBefore: z.number().nullable(),
});

export const verifyAuditResponseSchema = z.object({
  ok: z.boolean(),
  checked: z.number(),
  brokenAt: z.number().nullable().optional(),
});
