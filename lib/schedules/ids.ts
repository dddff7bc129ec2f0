import { randomBytes } from "node:crypto";

/** A collision-resistant id for rows written with raw SQL (Prisma's cuid() only runs in the client). */
export function newId(): string {
  return `c${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
}
