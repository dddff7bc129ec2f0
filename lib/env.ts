// The environment, validated once at start-up (scripts/start.ts) so a typo fails
// loudly before the server starts. Everything is optional: defaults run locally.
import { z } from "zod";
import { databaseTarget } from "./config/database-url";

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

export const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    HOSTNAME: optionalString,
    DATABASE_URL: optionalString.superRefine((value, ctx) => {
      try {
        databaseTarget(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
      }
    }),
    NEXTAUTH_SECRET: optionalString,
    NEXTAUTH_URL: optionalString.pipe(z.string().url().optional()),
    SWARMDECK_ADMIN_EMAIL: optionalString.pipe(z.string().email().optional()),
    SWARMDECK_ADMIN_PASSWORD: optionalString.pipe(z.string().min(10, "SWARMDECK_ADMIN_PASSWORD needs at least 10 characters").optional()),
    SWARMDECK_ADMIN_TOKEN: optionalString.pipe(z.string().min(24, "SWARMDECK_ADMIN_TOKEN needs at least 24 characters").optional()),
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: optionalString.pipe(z.string().url().optional()),
    ALERT_WEBHOOK_URL: optionalString.pipe(z.string().url().optional()),
    SWARMDECK_ENCRYPTION_KEY: optionalString,
  })
  .superRefine((env, ctx) => {
    // On PostgreSQL several instances serve one database: a secret each generated for
    // itself (in its data folder) would sign sessions and encrypt values the others cannot read.
    let postgres = false;
    try {
      postgres = databaseTarget(env.DATABASE_URL).kind === "postgresql";
    } catch {
      return; // reported on DATABASE_URL
    }
    if (!postgres) return;
    for (const name of ["NEXTAUTH_SECRET", "SWARMDECK_ENCRYPTION_KEY"] as const) {
      if (!env[name]) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message:
            "required with a PostgreSQL DATABASE_URL, the same on every instance " +
            "(32 random bytes, base64url: node -e \"console.log(require('crypto').randomBytes(32).toString('base64url'))\")",
        });
      }
    }
  });

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}
