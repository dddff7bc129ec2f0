// First-start seeding, idempotent: an admin account and the admin automation
// token. A second start finds everything and changes nothing. (The schedule
// templates are offered when the first lead agent is created, not seeded.)
import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { appendAudit, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { hashPassword } from "@/lib/auth/passwords";
import { hashToken, tokenDisplayPrefix } from "@/lib/auth/secrets";
import { dataDir } from "@/lib/config/database-url";
import { db, type Tx, usesPostgres } from "@/lib/db";
import type { Env } from "@/lib/env";

export const DEFAULT_ADMIN_EMAIL = "admin@swarmdeck.local";
export const ADMIN_PASSWORD_FILE = "admin-password.txt";

export type SeedReport = {
  admin?: { email: string; password?: string; passwordFile?: string };
  adminToken?: "created" | "present";
};

/**
 * On PostgreSQL, several instances may start at once on one empty database: each
 * seeding transaction first takes a cluster-wide lock and looks again, so exactly
 * one of them creates the admin and its token. SQLite has one instance.
 */
async function seedLock(tx: Tx): Promise<void> {
  if (usesPostgres()) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('swarmdeck:seed'))`;
}

async function adminNeeded(client: Tx | typeof db, env: Env, email: string): Promise<boolean> {
  const anyUser = await client.user.findFirst({ select: { id: true } });
  const named = await client.user.findUnique({ where: { email }, select: { id: true } });
  // First start, or a new admin named by the environment.
  return !(named || (anyUser && !env.SWARMDECK_ADMIN_EMAIL));
}

async function seedAdmin(env: Env, report: SeedReport) {
  const email = (env.SWARMDECK_ADMIN_EMAIL ?? DEFAULT_ADMIN_EMAIL).toLowerCase();
  if (!(await adminNeeded(db, env, email))) return;
  const generated = !env.SWARMDECK_ADMIN_PASSWORD;
  const password = env.SWARMDECK_ADMIN_PASSWORD ?? randomBytes(12).toString("base64url");
  const passwordHash = await hashPassword(password);
  const created = await db.$transaction(async (tx) => {
    await seedLock(tx);
    if (usesPostgres() && !(await adminNeeded(tx, env, email))) return false;
    const user = await tx.user.create({ data: { email, name: "Admin", role: "admin", passwordHash } });
    await appendAudit(tx, {
      actor: SYSTEM_ACTOR,
      action: "user.created",
      targetType: "user",
      targetId: user.id,
      data: { email, role: "admin" },
    });
    return true;
  });
  if (!created) return;
  if (generated) {
    const file = path.join(dataDir(), ADMIN_PASSWORD_FILE);
    writeFileSync(file, `email: ${email}\npassword: ${password}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    report.admin = { email, password, passwordFile: file };
  } else {
    report.admin = { email };
  }
}

async function seedAdminToken(env: Env, report: SeedReport) {
  if (!env.SWARMDECK_ADMIN_TOKEN) return;
  const tokenHash = hashToken(env.SWARMDECK_ADMIN_TOKEN);
  if (await db.apiToken.findUnique({ where: { tokenHash }, select: { id: true } })) {
    report.adminToken = "present";
    return;
  }
  const admin = await db.user.findFirst({ where: { role: "admin", disabledAt: null }, orderBy: { createdAt: "asc" } });
  if (!admin) throw new Error("SWARMDECK_ADMIN_TOKEN is set but there is no admin to own it");
  const created = await db.$transaction(async (tx) => {
    await seedLock(tx);
    if (usesPostgres() && (await tx.apiToken.findUnique({ where: { tokenHash }, select: { id: true } }))) return false;
    const token = await tx.apiToken.create({
      data: { userId: admin.id, name: "SWARMDECK_ADMIN_TOKEN", tokenHash, prefix: tokenDisplayPrefix(env.SWARMDECK_ADMIN_TOKEN ?? "") },
    });
    await appendAudit(tx, {
      actor: SYSTEM_ACTOR,
      action: "api_token.created",
      targetType: "api_token",
      targetId: token.id,
      data: { name: token.name, userId: admin.id },
    });
    return true;
  });
  report.adminToken = created ? "created" : "present";
}

export async function seedDatabase(env: Env): Promise<SeedReport> {
  const report: SeedReport = {};
  await seedAdmin(env, report);
  await seedAdminToken(env, report);
  return report;
}
