// The PostgreSQL twin of claimNextTask (dispatch.ts). Several app instances claim
// from one database at once, so the claim is one transaction that:
// - locks the agent's row first (FOR NO KEY UPDATE): the polls of one agent, on
//   any instance, claim one after the other, so its running count against
//   maxConcurrentTasks is exact;
// - picks the next task in the same order as the SQLite code (the agent's own
//   pending tasks, then the pool; priority desc, then createdAt, id; a task this
//   agent gave back waits out its backoff) with FOR UPDATE SKIP LOCKED: a task
//   another transaction is claiming is passed over, never claimed twice, and no
//   poll waits behind another's claim;
// - then writes what the SQLite code writes, the audit entry last (it takes the
//   chain's cluster-wide lock: lib/audit/audit-log.pg.ts).
import "server-only";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import type { TaskDto } from "@/lib/contracts/tasks";
import { newId } from "@/lib/ids";
import { pgTransaction, type Sql } from "@/lib/pg";
import { claimedAudit, claimedEvent } from "./dispatch";
import { lastSeenCommitted, touchLastSeenPg } from "./last-seen";
import { toTaskDto } from "./task-rows";
import { insertTaskEventPg, readTaskPg } from "./task-rows.pg";

type ClaimResult = { task: TaskDto | null; poolRoom: boolean };

/** Not a task this agent gave back whose backoff is still running (`waiting` in dispatch.ts). */
const CLAIMABLE = `("retryAt" IS NULL OR "retryAt" <= $2 OR "lastAgentId" IS NULL OR "lastAgentId" <> $1)`;

async function nextTaskIdPg(sql: Sql, agentId: string, now: Date): Promise<{ id: string; from: "pending" | "unassigned" } | null> {
  const own = await sql.get<{ id: string }>(
    `SELECT "id" FROM "Task" WHERE "agentId" = $1 AND "status" = 'pending' AND ${CLAIMABLE}
     ORDER BY "priority" DESC, "createdAt", "id" LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED`,
    [agentId, now],
  );
  if (own) return { id: own.id, from: "pending" };
  const pooled = await sql.get<{ id: string }>(
    `SELECT "id" FROM "Task" WHERE "status" = 'unassigned' AND ${CLAIMABLE}
     ORDER BY "priority" DESC, "createdAt", "id" LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED`,
    [agentId, now],
  );
  return pooled ? { id: pooled.id, from: "unassigned" } : null;
}

export function claimNextTaskPg({ principal }: { principal: WorkerPrincipal }): Promise<ClaimResult> {
  const agentId = principal.agent.id;
  let seenAt = 0;
  const claiming = pgTransaction(async (sql) => {
    seenAt = 0; // pgTransaction may run this again after a rollback
    const now = Date.now();
    const at = new Date(now);
    const agent = await sql.get<{ max: number; archivedAt: number | null }>(
      `SELECT "maxConcurrentTasks" AS "max", "archivedAt" FROM "Agent" WHERE "id" = $1 FOR NO KEY UPDATE`,
      [agentId],
    );
    if (!agent || agent.archivedAt !== null) return { task: null, poolRoom: false };

    seenAt = await touchLastSeenPg(sql, agentId, now);

    // Read after the agent's lock: every earlier claim of this agent has committed.
    const { running } = (await sql.get<{ running: number }>(
      `SELECT COUNT(*) AS "running" FROM "Task" WHERE "agentId" = $1 AND "status" = 'in_progress'`,
      [agentId],
    )) ?? { running: 0 };
    if (running >= Math.max(1, agent.max)) return { task: null, poolRoom: false };
    const next = await nextTaskIdPg(sql, agentId, at);
    if (!next) return { task: null, poolRoom: true };

    const soul = await sql.get<{ currentVersionId: string | null }>(
      `SELECT "currentVersionId" FROM "IdentityFile" WHERE "agentId" = $1 AND "kind" = 'SOUL'`,
      [agentId],
    );
    // The row is locked and was re-checked by the pick; the status guard makes the claim's condition explicit.
    const claimed = await sql.run(
      `UPDATE "Task" SET "status" = 'in_progress', "agentId" = $1, "attempts" = "attempts" + 1, "claimedAt" = $2, "heartbeatAt" = $2,
         "progress" = NULL, "soulVersionId" = $3, "updatedAt" = $2
       WHERE "id" = $4 AND "status" = $5`,
      [agentId, at, soul?.currentVersionId ?? null, next.id, next.from],
    );
    if (claimed !== 1) throw new Error("a locked task changed under its claim");
    const sessionId = newId();
    await sql.run(
      `INSERT INTO "Session" ("id", "agentId", "taskId", "harness", "startedAt")
       VALUES ($1, $2, $3, (SELECT "harness" FROM "Agent" WHERE "id" = $2), $4)`,
      [sessionId, agentId, next.id, at],
    );
    await sql.run(`UPDATE "Agent" SET "status" = 'busy', "updatedAt" = $1 WHERE "id" = $2 AND "status" <> 'busy'`, [at, agentId]);
    const row = await readTaskPg(sql, next.id);
    if (!row) throw new Error("claimed task vanished");
    const claim = { principal, from: next.from, row, sessionId, now };
    await insertTaskEventPg(sql, claimedEvent(claim));
    await appendAuditPg(sql, claimedAudit(claim));
    return { task: toTaskDto(row), poolRoom: true };
  });
  return claiming.then((result) => {
    if (seenAt) lastSeenCommitted(agentId, seenAt);
    return result;
  });
}
