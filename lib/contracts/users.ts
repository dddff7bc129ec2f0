// Operator accounts (admin only): create, change role, disable, reset a password.
import { z } from "zod";
import { oneLine, userRoleSchema } from "./common";

export const MIN_PASSWORD_LENGTH = 10;

const passwordSchema = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(256, "at most 256 characters");

export const createUserBodySchema = z.strictObject({
  email: z.string().trim().toLowerCase().email("not a valid email address").max(254),
  name: oneLine(z.string().trim().max(80)).optional(),
  role: userRoleSchema,
  password: passwordSchema,
});
export type CreateUserBody = z.infer<typeof createUserBodySchema>;

export const updateUserBodySchema = z
  .strictObject({
    name: oneLine(z.string().trim().max(80)).optional(),
    role: userRoleSchema.optional(),
    disabled: z.boolean().optional(),
    password: passwordSchema.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: "nothing to change" });
export type UpdateUserBody = z.infer<typeof updateUserBodySchema>;

export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: userRoleSchema,
  disabled: z.boolean(),
  lastLoginAt: z.string().nullable(),
  createdAt: z.string(),
});
export type UserDto = z.infer<typeof userSchema>;

export const listUsersResponseSchema = z.object({ users: z.array(userSchema) });
