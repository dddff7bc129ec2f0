// The worker protocol (DESIGN.md, "Worker protocol"): a contract with every worker.
import { z } from "zod";
import { agentRoleSchema, securityProfileSchema } from "./common";

export const registerBodySchema = z.strictObject({
  version: z.string().trim().min(1).max(64),
  hostname: z.string().trim().min(1).max(255),
  harness: z.string().trim().min(1).max(64),
});
export type RegisterBody = z.infer<typeof registerBodySchema>;

export const registerResponseSchema = z.object({
  agent: z.object({ id: z.string(), name: z.string(), role: agentRoleSchema, securityProfile: securityProfileSchema }),
  pollIntervalMs: z.number(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;
