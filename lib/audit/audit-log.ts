// The audit log: append-only and hash-chained. Each row's hash covers the previous
// row's hash and the row's own fields, so editing or deleting any row breaks the
// chain from there on, which `verifyAuditChain` reports.
import "server-only";
import type Database from "better-sqlite3";
import { prepare, type Tx, usesPostgres, withSqlite } from "@/lib/db";
import { sha256Hex } from "@/lib/sha256";

export const GENESIS_HASH = "0".repeat(64);

export type Actor = {
  type: "user" | "api_token" | "worker" | "system";
  id: string | null;
  label: string;
};

export const SYSTEM_ACTOR: Actor = { type: "system", id: null, label: "system" };

export type AuditInput = {
  actor: Actor;
  action: string;
  targetType?: string | null;
  targetId?: string | null;
  agentId?: string | null;
  data?: Record<string, unknown>;
};

export type Row = {
  createdAt: number;
  actorType: string;
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  agentId: string | null;
  data: string;
};

/** The fields the chain protects, in the order the hash takes them (after the previous hash). */
function hashedFields(row: Row): unknown[] {
  return [row.createdAt, row.actorType, row.actorId, row.actorLabel, row.action, row.targetType, row.targetId, row.agentId, row.data];
}

export function auditHash(prevHash: string, row: Row): string {
  const canonical = JSON.stringify([prevHash, ...hashedFields(row)]);
  return sha256Hex(canonical);
}

/**
 * What follows the previous hash in auditHash's canonical text: auditHash(prev, row)
 * is the SHA-256 of `["` + prev + `",` + this (a hash is hex, so it needs no JSON
 * escaping). PostgreSQL appends compute the hash in the statement that reads the
 * previous one (audit-log.pg.ts) from this text.
 */
export function auditHashTail(row: Row): string {
  return JSON.stringify(hashedFields(row)).slice(1);
}

export function auditRow(input: AuditInput, createdAt: number): Row {
  return {
    createdAt,
    actorType: input.actor.type,
    actorId: input.actor.id,
    actorLabel: input.actor.label,
    action: input.action,
    targetType: input.targetType ?? null,
    targetId: input.targetId ?? null,
    agentId: input.agentId ?? null,
    data: JSON.stringify(input.data ?? {}),
  };
}

/** The next row of the chain after the row whose hash is `lastHash` (none yet: the genesis hash), as every store appends it. */
export function chainedRow(input: AuditInput, lastHash: string | undefined): Row & { prevHash: string; hash: string } {
  const prevHash = lastHash ?? GENESIS_HASH;
  const row = auditRow(input, Date.now());
  return { ...row, prevHash, hash: auditHash(prevHash, row) };
}

/** Appends an event inside a Prisma transaction (the same one as the change it records). */
export async function appendAudit(tx: Tx, input: AuditInput): Promise<void> {
  if (usesPostgres()) {
    // Appends from every instance line up on the chain's head row (audit-log.pg.ts).
    const { appendStatementPg } = await import("./audit-log.pg");
    const { text, params } = appendStatementPg(input);
    const appended = await tx.$executeRawUnsafe(text, ...params);
    if (appended !== 1) throw new Error("the audit chain's head row is missing (migration 20261126170000_audit_chain_head)");
    return;
  }
  const last = await tx.auditEvent.findFirst({ orderBy: { id: "desc" }, select: { hash: true } });
  const row = chainedRow(input, last?.hash);
  await tx.auditEvent.create({ data: { ...row, createdAt: new Date(row.createdAt) } });
}

/** Appends an event on the raw connection; call inside the `writeTransaction` of the change. */
export function appendAuditSync(sqlite: Database.Database, input: AuditInput): void {
  const last = prepare(sqlite, "SELECT hash FROM AuditEvent ORDER BY id DESC LIMIT 1").get() as { hash: string } | undefined;
  prepare(
    sqlite,
    `INSERT INTO AuditEvent (createdAt, actorType, actorId, actorLabel, action, targetType, targetId, agentId, data, prevHash, hash)
     VALUES (@createdAt, @actorType, @actorId, @actorLabel, @action, @targetType, @targetId, @agentId, @data, @prevHash, @hash)`,
  ).run(chainedRow(input, last?.hash));
}

export type VerifyResult = { ok: boolean; checked: number; brokenAt: number | null };

/** Recomputes the whole chain in id order. */
export async function verifyAuditChain(): Promise<VerifyResult> {
  if (usesPostgres()) return (await import("./audit-log.pg")).verifyAuditChainPg();
  return withSqlite((sqlite) => {
    let prevHash = GENESIS_HASH;
    let checked = 0;
    const rows = prepare(
      sqlite,
      "SELECT id, createdAt, actorType, actorId, actorLabel, action, targetType, targetId, agentId, data, prevHash, hash FROM AuditEvent ORDER BY id",
    ).iterate() as Iterable<Row & { id: number; prevHash: string; hash: string }>;
    for (const row of rows) {
      checked += 1;
      if (row.prevHash !== prevHash || auditHash(prevHash, row) !== row.hash) {
        return { ok: false, checked, brokenAt: row.id };
      }
      prevHash = row.hash;
    }
    return { ok: true, checked, brokenAt: null };
  });
}
