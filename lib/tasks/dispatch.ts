// Dispatch, the hot path: a worker's poll atomically claims the next task for its
// agent in ONE raw write transaction (its own pending tasks first, then the
// pool; each by priority, then age; within the agent's concurrency limit), and
// otherwise waits, woken in-process when work appears (task-wakeup.ts). On the
// PostgreSQL store the claim is dispatch.pg.ts and wake-ups also cross app
// instances (task-wakeup.pg.ts).
import "server-only";
import type Database from "better-sqlite3";
import { type AuditInput, appendAuditSync } from "@/lib/audit/audit-log";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import type { TaskDto } from "@/lib/contracts/tasks";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { newId } from "@/lib/ids";
import { lastSeenCommitted, touchLastSeen } from "./last-seen";
import { POLL_SAFETY_RECHECK_MS } from "./settings";
import { insertTaskEvent, TASK_RETURNING, type TaskEventInput, type TaskRow, toTaskDto, withAgentName } from "./task-rows";
import { notifyTasks, waitForWork, wakeGeneration } from "./task-wakeup";

type ClaimResult = { task: TaskDto | null; poolRoom: boolean };

type Candidate = { id: string; retryAt: number | null; lastAgentId: string | null };

/** Given back by this agent and still in its backoff (task-finish.ts): not for this agent yet. */
const waiting = (row: Candidate, agentId: string, now: number) => row.retryAt !== null && row.retryAt > now && row.lastAgentId === agentId;

/**
 * The next claimable task id: max priority first (an index seek), then the oldest.
 * A task this agent gave back waits out its backoff; only when the fast pick is
 * such a task does a slower query look past it (rare: give-backs are few).
 */
function nextTaskId(
  sqlite: Database.Database,
  agentId: string,
  poolRoom: boolean,
  now: number,
): { id: string; from: "pending" | "unassigned" } | null {
  const pendingTop = prepare(sqlite, "SELECT MAX(priority) AS p FROM Task WHERE agentId = ? AND status = 'pending'").get(agentId) as {
    p: number | null;
  };
  if (pendingTop.p !== null) {
    let row = prepare(
      sqlite,
      "SELECT id, retryAt, lastAgentId FROM Task WHERE agentId = ? AND status = 'pending' AND priority = ? ORDER BY createdAt, id LIMIT 1",
    ).get(agentId, pendingTop.p) as Candidate | undefined;
    if (row && waiting(row, agentId, now)) {
      row = prepare(
        sqlite,
        `SELECT id, retryAt, lastAgentId FROM Task WHERE agentId = ? AND status = 'pending' AND (retryAt IS NULL OR retryAt <= ?)
         ORDER BY priority DESC, createdAt, id LIMIT 1`,
      ).get(agentId, now) as Candidate | undefined;
    }
    if (row) return { id: row.id, from: "pending" };
  }
  if (!poolRoom) return null;
  const poolTop = prepare(sqlite, "SELECT MAX(priority) AS p FROM Task WHERE status = 'unassigned'").get() as { p: number | null };
  if (poolTop.p === null) return null;
  let row = prepare(
    sqlite,
    "SELECT id, retryAt, lastAgentId FROM Task WHERE status = 'unassigned' AND priority = ? ORDER BY createdAt, id LIMIT 1",
  ).get(poolTop.p) as Candidate | undefined;
  if (row && waiting(row, agentId, now)) {
    // Another agent may take a pool task at once: the one that gave it back is the one that waits.
    row = prepare(
      sqlite,
      `SELECT id, retryAt, lastAgentId FROM Task WHERE status = 'unassigned'
         AND (retryAt IS NULL OR retryAt <= ? OR lastAgentId IS NULL OR lastAgentId <> ?)
       ORDER BY priority DESC, createdAt, id LIMIT 1`,
    ).get(now, agentId) as Candidate | undefined;
  }
  return row ? { id: row.id, from: "unassigned" } : null;
}

/** A claim as both stores record it (claimNextTask here, claimNextTaskPg in dispatch.pg.ts): `row` is the task read after it. */
type Claim = { principal: WorkerPrincipal; from: "pending" | "unassigned"; row: TaskRow; sessionId: string; now: number };

/** The timeline event of a claim (both stores). */
export function claimedEvent({ principal, from, row, sessionId, now }: Claim): TaskEventInput {
  return {
    taskId: row.id,
    type: "claimed",
    fromStatus: from,
    toStatus: "in_progress",
    message: `Claimed by ${principal.agent.name} (attempt ${row.attempts})`,
    data: { attempt: row.attempts, sessionId },
    actor: { type: "worker", id: principal.agent.id },
    at: now,
  };
}

/** The audit entry of a claim (both stores). */
export function claimedAudit({ principal, from, row, sessionId }: Claim): AuditInput {
  return {
    actor: { type: "worker", id: principal.agent.id, label: principal.agent.name },
    action: "task.claimed",
    targetType: "task",
    targetId: row.id,
    agentId: principal.agent.id,
    data: { from, attempt: row.attempts, sessionId },
  };
}

/** Built once (see READ_TASK_SQL in task-rows.ts). */
const CLAIM_SQL = `UPDATE Task SET status = 'in_progress', agentId = ?, attempts = attempts + 1, claimedAt = ?, heartbeatAt = ?,
    progress = NULL, soulVersionId = ?, updatedAt = ?
  WHERE id = ? ${TASK_RETURNING}`;

/** Claims one task for the agent, or answers null (and whether it had room for more). */
export function claimNextTask({ principal }: { principal: WorkerPrincipal }): Promise<ClaimResult> {
  if (usesPostgres()) return import("./dispatch.pg").then(({ claimNextTaskPg }) => claimNextTaskPg({ principal }));
  const agentId = principal.agent.id;
  let seenAt = 0;
  const claiming = writeTransaction((sqlite) => {
    const now = Date.now();
    const agent = prepare(
      sqlite,
      `SELECT name, maxConcurrentTasks AS max, archivedAt,
        (SELECT COUNT(*) FROM Task WHERE agentId = @agentId AND status = 'in_progress') AS running
       FROM Agent WHERE id = @agentId`,
    ).get({ agentId }) as { name: string; max: number; archivedAt: number | null; running: number } | undefined;
    if (!agent || agent.archivedAt !== null) return { task: null, poolRoom: false };

    seenAt = touchLastSeen(sqlite, agentId, now);

    const room = agent.running < Math.max(1, agent.max);
    if (!room) return { task: null, poolRoom: false };
    const next = nextTaskId(sqlite, agentId, true, now);
    if (!next) return { task: null, poolRoom: true };

    const soul = prepare(sqlite, "SELECT currentVersionId FROM IdentityFile WHERE agentId = ? AND kind = 'SOUL'").get(agentId) as
      | { currentVersionId: string | null }
      | undefined;
    // The row as claimed (the writes below touch other tables), read back by the UPDATE itself.
    const claimed = prepare(sqlite, CLAIM_SQL).get(agentId, now, now, soul?.currentVersionId ?? null, now, next.id) as
      | Omit<TaskRow, "agentName">
      | undefined;
    const sessionId = newId();
    prepare(
      sqlite,
      "INSERT INTO Session (id, agentId, taskId, harness, startedAt) VALUES (?, ?, ?, (SELECT harness FROM Agent WHERE id = ?), ?)",
    ).run(sessionId, agentId, next.id, agentId, now);
    prepare(sqlite, "UPDATE Agent SET status = 'busy', updatedAt = ? WHERE id = ? AND status <> 'busy'").run(now, agentId);
    // The name as it is now (a long poll may have waited out a rename since it authenticated).
    const row = withAgentName(claimed, agent.name);
    if (!row) throw new Error("claimed task vanished");
    const claim = { principal, from: next.from, row, sessionId, now };
    insertTaskEvent(sqlite, claimedEvent(claim));
    appendAuditSync(sqlite, claimedAudit(claim));
    return { task: toTaskDto(row), poolRoom: true };
  });
  return claiming.then((result) => {
    if (seenAt) lastSeenCommitted(agentId, seenAt);
    return result;
  });
}

/**
 * The long poll: claim now, or wait up to `waitMs` for a wake-up and try again.
 * Returns null when nothing came (the route answers 204).
 */
export async function pollForTask({
  principal,
  waitMs,
  signal,
}: {
  principal: WorkerPrincipal;
  waitMs: number;
  /** The request's hang-up signal, asked for only when a claim found nothing (lib/api/fast-path.ts makes it then). */
  signal?: () => AbortSignal;
}): Promise<TaskDto | null> {
  const deadline = Date.now() + waitMs;
  // On PostgreSQL, work announced by the other app instances reaches this process's polls too.
  if (usesPostgres() && waitMs > 0) await (await import("./task-wakeup.pg")).ensureTaskListenerPg();
  for (;;) {
    const generation = wakeGeneration();
    const { task, poolRoom } = await claimNextTask({ principal });
    if (task) return task;
    // A worker that hung up gets nothing more (not even work that appeared meanwhile).
    const hangUp = signal?.();
    if (hangUp?.aborted) return null;
    // Work that appeared while the claim ran would have woken nobody: try again at once.
    if (wakeGeneration() !== generation) continue;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await waitForWork({ agentId: principal.agent.id, pool: poolRoom, timeoutMs: Math.min(left, POLL_SAFETY_RECHECK_MS), signal: hangUp });
  }
}

/** A task (or a freed slot) is there for `agentId`, or `count` tasks for the pool. */
export function announceTasks(change: { agentId: string | null; count?: number }): void {
  notifyTasks(change);
  // On PostgreSQL, also to the polls waiting on the other app instances (task-wakeup.pg.ts).
  if (usesPostgres()) void import("./task-wakeup.pg").then(({ publishTasksPg }) => publishTasksPg(change));
}
