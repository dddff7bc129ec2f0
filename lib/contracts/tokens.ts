import { z } from "zod";
import { oneLine } from "./common";

export const createTokenBodySchema = z.strictObject({
  name: oneLine(z.string().trim().min(1, "a name is required").max(80)),
});

export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type TokenDto = z.infer<typeof tokenSchema>;

/** The secret is in this answer only; it is stored hashed and never shown again. */
export const createdTokenSchema = tokenSchema.extend({ token: z.string() });
export type CreatedTokenDto = z.infer<typeof createdTokenSchema>;

export const listTokensResponseSchema = z.object({ tokens: z.array(tokenSchema) });

/** Prefixes tell the two kinds apart at a glance (and in secret scanners). */
export const OPERATOR_TOKEN_PREFIX = "sdo_";
export const WORKER_TOKEN_PREFIX = "sdw_";

/** Operator API token: admins may mint one for another user (e.g. a viewer's automation). */
export const createApiTokenBodySchema = createTokenBodySchema.extend({
  userId: z.string().min(1).max(64).optional(),
});
export type CreateApiTokenBody = z.infer<typeof createApiTokenBodySchema>;

export const apiTokenSchema = tokenSchema.extend({
  owner: z.object({ id: z.string(), email: z.string(), role: z.string() }),
});
export type ApiTokenDto = z.infer<typeof apiTokenSchema>;
export const createdApiTokenSchema = apiTokenSchema.extend({ token: z.string() });
export const listApiTokensResponseSchema = z.object({ tokens: z.array(apiTokenSchema) });
