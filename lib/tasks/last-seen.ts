// agent.lastSeenAt, which polls and heartbeats keep fresh: written about once every
// LAST_SEEN_EVERY_MS per agent (calls that overlap may each write it), and counted as
// written only once the transaction
// that wrote it committed (a transaction that rolled back leaves it due, so the
// next call writes it instead of the agent looking gone for up to that long).
// One map for the claim and the worker's task calls, on either store.
import { LAST_SEEN_EVERY_MS } from "./settings";

const written = new Map<string, number>();

/** Whether a call at `now` should write the agent's lastSeenAt. */
export function lastSeenDue(agentId: string, now: number): boolean {
  return (written.get(agentId) ?? 0) < now - LAST_SEEN_EVERY_MS;
}

/** The write of lastSeenAt = `at` committed. */
export function lastSeenCommitted(agentId: string, at: number): void {
  if ((written.get(agentId) ?? 0) < at) written.set(agentId, at);
}
