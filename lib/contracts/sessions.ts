// Signed-in browser sessions: listed in Settings, ended there, at sign-out and on a password change.
import { z } from "zod";

export const operatorSessionSchema = z.object({
  id: z.string(),
  user: z.object({ id: z.string(), email: z.string() }),
  userAgent: z.string(),
  address: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  expiresAt: z.string(),
  /** The session this request came from. */
  current: z.boolean(),
});
export type OperatorSessionDto = z.infer<typeof operatorSessionSchema>;

export const listSessionsResponseSchema = z.object({ sessions: z.array(operatorSessionSchema) });
