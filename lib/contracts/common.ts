// Enumerations of the domain model, shared by the app, the worker and the tests.
import { z } from "zod";

export const USER_ROLES = ["admin", "operator", "viewer"] as const;
export const userRoleSchema = z.enum(USER_ROLES);
export type UserRole = z.infer<typeof userRoleSchema>;

export const AGENT_ROLES = ["lead", "worker"] as const;
export const agentRoleSchema = z.enum(AGENT_ROLES);
export type AgentRole = z.infer<typeof agentRoleSchema>;

export const SECURITY_PROFILES = ["paranoid", "standard", "power"] as const;
export const securityProfileSchema = z.enum(SECURITY_PROFILES);
export type SecurityProfile = z.infer<typeof securityProfileSchema>;

/** Agent names are slugs: they become git identities, folder and container names. */
export const agentNameSchema = z
  .string()
  .trim()
  .min(2, "at least 2 characters")
  .max(48, "at most 48 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "lower-case letters, digits and dashes, starting and ending with a letter or digit");

export const idSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "not a valid id");

export const paginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional(),
});

export type ApiErrorBody = { error: { code: string; message: string; details?: unknown } };

/** Maximum request body the API accepts (413 beyond), documented in the README. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How much of an oversized body the server still reads (and throws away) before it
 * answers 413: a client that is still sending when the answer comes would otherwise
 * get a reset (EPIPE) instead of the answer. Past this much, the connection is cut.
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * A date (YYYY-MM-DD, or an ISO date-time starting so) that names a real day of the
 * calendar. Date.parse alone rolls an impossible day over ("2026-02-30" is 2 March),
 * so the day is read back and compared.
 */
export function isCalendarDate(value: string): boolean {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!day) return false;
  const [, year, month, date] = day.map(Number) as [number, number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, date));
  return calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === date;
}

/**
 * C0 and C1 control characters but the tab (a pasted title may hold one; it shows as
 * a space), and Unicode's text-direction embeddings, overrides
 * and isolates (U+202A-U+202E, U+2066-U+2069). In a name shown to operators they can
 * hide or reorder what it says ("h\u202Eexe.txt" reads as "htxt.exe").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what it finds
const CONTROL_OR_DIRECTION = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A label or title: one line of text an operator reads as it is. */
export function oneLine(schema: z.ZodString) {
  return schema.refine(
    (value) => !CONTROL_OR_DIRECTION.test(value),
    "must be one line of text, without control or text-direction characters",
  );
}
