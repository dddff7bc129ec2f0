// agent.lastSeenAt, which polls and heartbeats keep fresh: written about once every
// LAST_SEEN_EVERY_MS per agent (calls that overlap may each write it), and counted as
// written only once the transaction that wrote it committed (a transaction that rolled
// back leaves it due, so the next call writes it instead of the agent looking gone for
// up to that long). One map for the claim and the worker's task calls, on either store.
import "server-only";
import type Database from "better-sqlite3";
import { prepare } from "@/lib/db";
import type { Sql } from "@/lib/pg";
import { LAST_SEEN_EVERY_MS } from "./settings";

const written = new Map<string, number>();

/** Whether a call at `now` should write the agent's lastSeenAt. */
function lastSeenDue(agentId: string, now: number): boolean {
  return (written.get(agentId) ?? 0) < now - LAST_SEEN_EVERY_MS;
}

/** The write of lastSeenAt = `at` committed. */
export function lastSeenCommitted(agentId: string, at: number): void {
  if ((written.get(agentId) ?? 0) < at) written.set(agentId, at);
}

/**
 * Inside the caller's write transaction: writes the agent's lastSeenAt when it is due.
 * Answers the time written (0: not due); pass it to lastSeenCommitted once committed.
 */
export function touchLastSeen(sqlite: Database.Database, agentId: string, now: number): number {
  if (!lastSeenDue(agentId, now)) return 0;
  prepare(sqlite, "UPDATE Agent SET lastSeenAt = ? WHERE id = ?").run(now, agentId);
  return now;
}

/** touchLastSeen on the PostgreSQL store. */
export async function touchLastSeenPg(sql: Sql, agentId: string, now: number): Promise<number> {
  if (!lastSeenDue(agentId, now)) return 0;
  await sql.run(`UPDATE "Agent" SET "lastSeenAt" = $1 WHERE "id" = $2`, [new Date(now), agentId]);
  return now;
}
