import { z } from "zod";

export const CONFIG_SCOPES = ["global", "agent", "repo"] as const;
export const configScopeSchema = z.enum(CONFIG_SCOPES);

export const configKeySchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "letters, digits, '_', '.', '-'; not starting with a digit");

export const putConfigBodySchema = z
  .strictObject({
    scope: configScopeSchema,
    scopeId: z.string().trim().max(512).optional(),
    key: configKeySchema,
    value: z.string().max(256 * 1024),
    /** Encrypted at rest and never answered. Left out on an update: the entry keeps the flag it has. */
    secret: z.boolean().optional(),
    /**
     * The updatedAt of the entry the writer started from (null: there was none). When
     * given and the entry has changed since, the answer is 409 stale_base, so an editor
     * never overwrites what someone else saved meanwhile.
     */
    baseUpdatedAt: z.iso.datetime().nullable().optional(),
  })
  .refine((body) => body.scope === "global" || (body.scopeId ?? "") !== "", {
    message: "scopeId is required for agent and repo scope",
    path: ["scopeId"],
  });
export type PutConfigBody = z.infer<typeof putConfigBodySchema>;

export const configEntrySchema = z.object({
  id: z.string(),
  scope: configScopeSchema,
  scopeId: z.string(),
  key: z.string(),
  /** null for secrets: their values never leave the server through this API. */
  value: z.string().nullable(),
  secret: z.boolean(),
  updatedAt: z.string(),
});
export type ConfigEntryDto = z.infer<typeof configEntrySchema>;

export const getConfigQuerySchema = z.object({
  scope: configScopeSchema.optional(),
  scopeId: z.string().max(512).optional(),
  key: z.string().max(128).optional(),
});

export const GLOBAL_SETUP_SCRIPT_KEY = "SETUP_SCRIPT";
