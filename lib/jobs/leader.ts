// Which app instance runs the cluster's background jobs (the scheduler, alerts,
// the stall sweep, memory jobs, notifications). On SQLite there is one process
// per database file and it always leads. On PostgreSQL the leader is whichever
// instance holds one session-level advisory lock (ADVISORY.backgroundLeader in
// lib/pg.ts) on a connection of its own: if that instance dies or loses its
// connection, PostgreSQL releases the lock and the next instance to ask takes
// over (fail-over within one job interval).
import "server-only";
import pg from "pg";
import { databaseTarget } from "@/lib/config/database-url";
import { usesPostgres } from "@/lib/db";
import { ADVISORY } from "@/lib/pg";

type State = { client: pg.Client | null; leading: boolean; asking: Promise<boolean> | null };
const globalForLeader = globalThis as unknown as { swarmdeckLeader?: State };

function state(): State {
  globalForLeader.swarmdeckLeader ??= { client: null, leading: false, asking: null };
  return globalForLeader.swarmdeckLeader;
}

async function ask(current: State): Promise<boolean> {
  const target = databaseTarget();
  if (target.kind !== "postgresql") return true;
  try {
    if (!current.client) {
      const client = new pg.Client({ connectionString: target.url, application_name: `swarmdeck-leader:${process.pid}` });
      client.on("error", (error) => {
        if (current.leading) console.warn(`[swarmdeck] lost the background-jobs lock (${error.message}); another instance takes over`);
        current.leading = false;
        current.client = null;
        client.end().catch(() => {});
      });
      await client.connect();
      current.client = client;
    }
    if (current.leading) {
      // Still connected, so still holding it: a cheap round trip proves the connection.
      await current.client.query("SELECT 1");
      return true;
    }
    const { rows } = await current.client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
      ADVISORY.backgroundLeader,
    ]);
    current.leading = rows[0]?.locked === true;
    if (current.leading) console.log(`[swarmdeck] this instance (pid ${process.pid}) now runs the background jobs`);
    return current.leading;
  } catch (error) {
    current.leading = false;
    current.client?.end().catch(() => {});
    current.client = null;
    console.warn(`[swarmdeck] could not ask for the background-jobs lock: ${(error as Error).message}`);
    return false;
  }
}

/** True when this instance should run the cluster's background jobs now. */
export function isLeader(): Promise<boolean> {
  if (!usesPostgres()) return Promise.resolve(true);
  const current = state();
  current.asking ??= ask(current).finally(() => {
    current.asking = null;
  });
  return current.asking;
}

/** Gives the lock up (a clean shutdown), so another instance takes over at once. */
export async function resignLeadership(): Promise<void> {
  const current = state();
  const client = current.client;
  current.leading = false;
  current.client = null;
  await client?.end().catch(() => {});
}
