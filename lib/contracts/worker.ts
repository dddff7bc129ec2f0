// The worker protocol (docs/architecture.md, "Worker protocol"): a contract with every worker.
import { z } from "zod";
import { agentRoleSchema, oneLine, securityProfileSchema } from "./common";

export const registerBodySchema = z.strictObject({
  version: oneLine(z.string().trim().min(1).max(64)),
  hostname: oneLine(z.string().trim().min(1).max(255)),
  harness: oneLine(z.string().trim().min(1).max(64)),
});
export type RegisterBody = z.infer<typeof registerBodySchema>;

export const registerResponseSchema = z.object({
  agent: z.object({ id: z.string(), name: z.string(), role: agentRoleSchema, securityProfile: securityProfileSchema }),
  pollIntervalMs: z.number(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

/**
 * GET /api/worker/setup-script: the composed setup script the worker runs at start
 * and again whenever `hash` (sha256 of `composed`) changes (docs/architecture.md
 * "Setup script"). An extension of the protocol: older workers never call it.
 */
export const setupScriptResponseSchema = z.object({ global: z.string(), agent: z.string(), composed: z.string(), hash: z.string() });
export type SetupScriptResponse = z.infer<typeof setupScriptResponseSchema>;

/** POST /api/worker/setup-status: how the worker's last run of that script went. */
export const setupStatusBodySchema = z.strictObject({
  status: z.enum(["ok", "failed"]),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "the sha256 of the composed script, hex"),
  exitCode: z.number().int().nullable().default(null),
  /** The tail of its output (stdout and stderr). */
  output: z
    .string()
    .max(64 * 1024)
    .default(""),
  /** Whether the worker stopped claiming tasks because of it (STARTUP_SCRIPT_STRICT). */
  blocking: z.boolean().default(false),
});
export type SetupStatusBody = z.infer<typeof setupStatusBodySchema>;
