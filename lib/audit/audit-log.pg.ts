// The audit chain on the PostgreSQL store (the SQLite twin is audit-log.ts). Several
// app instances append at once, so every append first takes one cluster-wide
// advisory lock for the rest of its transaction: the appends line up, each reads
// the hash its predecessor committed, and the chain stays one unbroken chain.
import "server-only";
import { ADVISORY, pgSql, type Sql } from "@/lib/pg";
import { type AuditInput, auditHash, chainedRow, GENESIS_HASH, type VerifyResult } from "./audit-log";

/** Takes the chain's lock until the transaction ends. Call first in any transaction that appends. */
export async function lockAuditChain(sql: Sql): Promise<void> {
  await sql.get("SELECT pg_advisory_xact_lock($1)", [ADVISORY.auditChain]);
}

/** Appends an event; call inside the `pgTransaction` of the change it records. */
export async function appendAuditPg(sql: Sql, input: AuditInput): Promise<void> {
  await lockAuditChain(sql);
  const last = await sql.get<{ hash: string }>('SELECT "hash" FROM "AuditEvent" ORDER BY "id" DESC LIMIT 1');
  const row = chainedRow(input, last?.hash);
  await sql.run(
    `INSERT INTO "AuditEvent" ("createdAt", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "agentId", "data", "prevHash", "hash")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      new Date(row.createdAt),
      row.actorType,
      row.actorId,
      row.actorLabel,
      row.action,
      row.targetType,
      row.targetId,
      row.agentId,
      row.data,
      row.prevHash,
      row.hash,
    ],
  );
}

type ChainRow = Parameters<typeof auditHash>[1] & { id: number; prevHash: string; hash: string };

/** Recomputes the whole chain in id order, a page at a time. */
export async function verifyAuditChainPg(): Promise<VerifyResult> {
  const sql = pgSql();
  let prevHash = GENESIS_HASH;
  let checked = 0;
  let after = 0;
  for (;;) {
    const rows = await sql.all<ChainRow>(
      `SELECT "id", "createdAt", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "agentId", "data", "prevHash", "hash"
       FROM "AuditEvent" WHERE "id" > $1 ORDER BY "id" LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) return { ok: true, checked, brokenAt: null };
    for (const row of rows) {
      checked += 1;
      if (row.prevHash !== prevHash || auditHash(prevHash, row) !== row.hash) return { ok: false, checked, brokenAt: row.id };
      prevHash = row.hash;
      after = row.id;
    }
  }
}
