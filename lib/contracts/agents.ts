import { z } from "zod";
import { agentNameSchema, agentRoleSchema, oneLine, securityProfileSchema } from "./common";

/** The longest display name an agent may have. */
export const MAX_DISPLAY_NAME_CHARS = 80;
/** The longest description an agent may have. */
export const MAX_DESCRIPTION_CHARS = 2000;

const agentFieldsSchema = z.strictObject({
  name: agentNameSchema,
  displayName: oneLine(z.string().trim().max(MAX_DISPLAY_NAME_CHARS, `at most ${MAX_DISPLAY_NAME_CHARS} characters`)).optional(),
  description: z.string().max(MAX_DESCRIPTION_CHARS, `at most ${MAX_DESCRIPTION_CHARS} characters`).optional(),
  role: agentRoleSchema.optional(),
  securityProfile: securityProfileSchema.optional(),
  capabilities: z
    .array(z.string().trim().min(1, "a capability cannot be empty").max(64, "a capability has at most 64 characters"))
    .max(64, "at most 64 capabilities")
    .optional(),
  maxConcurrentTasks: z
    .number({ error: "a whole number from 1 to 32" })
    .int("a whole number from 1 to 32")
    .min(1, "at least 1")
    .max(32, "at most 32")
    .optional(),
});

/**
 * How a new agent gets its identity: `templates` (SOUL, IDENTITY, USER... from the
 * default templates) or `bootstrap` (no SOUL, IDENTITY or USER: its first task runs
 * the BOOTSTRAP.md ritual, in which it writes them itself).
 */
export const IDENTITY_STARTS = ["templates", "bootstrap"] as const;
export const createAgentBodySchema = agentFieldsSchema.extend({ identityStart: z.enum(IDENTITY_STARTS).default("templates") });
export type CreateAgentBody = z.input<typeof createAgentBodySchema>;

export const updateAgentBodySchema = agentFieldsSchema.partial();
export type UpdateAgentBody = z.infer<typeof updateAgentBodySchema>;

export const agentStatusSchema = z.enum(["idle", "busy", "offline"]);

export const agentSchema = z.object({
  id: z.string(),
  name: z.string(),
  displayName: z.string(),
  description: z.string(),
  role: agentRoleSchema,
  status: agentStatusSchema,
  online: z.boolean(),
  capabilities: z.array(z.string()),
  securityProfile: securityProfileSchema,
  maxConcurrentTasks: z.number(),
  lastSeenAt: z.string().nullable(),
  workerVersion: z.string().nullable(),
  workerHostname: z.string().nullable(),
  harness: z.string().nullable(),
  /** The worker's last run of the setup script (null: never reported). */
  setup: z
    .object({ status: z.enum(["ok", "failed"]), output: z.string(), hash: z.string().nullable(), at: z.string().nullable() })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AgentDto = z.infer<typeof agentSchema>;

export const listAgentsResponseSchema = z.object({ agents: z.array(agentSchema) });
