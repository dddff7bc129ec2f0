// The audit chain on the PostgreSQL store (the SQLite twin is audit-log.ts). Several
// app instances append at once, so the chain has a head: one row, "AuditChainHead"
// (prisma/postgresql/migrations/20261126170000_audit_chain_head), holding the last
// event's hash. Each append is one statement that updates the head (taking its row
// lock until the transaction ends) and inserts the event chained to the hash it
// found there. An append that waited for another's lock reads the head as that one
// committed it (an UPDATE re-reads a row it waited for), so the appends line up and
// the chain stays one unbroken chain; and the lock is held from that statement to
// the commit only, one round trip shorter than a lock, a read and an insert.
//
// The hash is computed in the statement: SHA-256 of `["` + the previous hash + `",`
// + auditHashTail(row), which is auditHash's canonical text (audit-log.ts;
// audit-log.test.ts holds the two equal); verifyAuditChainPg checks it with auditHash.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";
import { type AuditInput, auditHash, auditHashTail, auditRow, GENESIS_HASH, type VerifyResult } from "./audit-log";

/** The append as one statement and its parameters (also run through Prisma by appendAudit in audit-log.ts). */
export function appendStatementPg(input: AuditInput): { text: string; params: unknown[] } {
  const row = auditRow(input, Date.now());
  return {
    text: `WITH head AS (
        UPDATE "AuditChainHead"
        SET "prevHash" = "hash", "hash" = encode(sha256(convert_to('["' || "hash" || '",' || $10::text, 'UTF8')), 'hex')
        WHERE "id" = 1
        RETURNING "prevHash", "hash"
      )
      INSERT INTO "AuditEvent" ("createdAt", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "agentId", "data", "prevHash", "hash")
      SELECT $1::timestamptz, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, head."prevHash", head."hash" FROM head`,
    params: [
      new Date(row.createdAt),
      row.actorType,
      row.actorId,
      row.actorLabel,
      row.action,
      row.targetType,
      row.targetId,
      row.agentId,
      row.data,
      auditHashTail(row),
    ],
  };
}

/** Appends an event; call inside the `pgTransaction` of the change it records (it holds the chain until the commit: call it last). */
export async function appendAuditPg(sql: Sql, input: AuditInput): Promise<void> {
  const { text, params } = appendStatementPg(input);
  const appended = await sql.run(text, params);
  if (appended !== 1) throw new Error("the audit chain's head row is missing (migration 20261126170000_audit_chain_head)");
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
