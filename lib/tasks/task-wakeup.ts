// Wakes long-polling workers the moment work appears, in-process, so an idle
// worker costs nothing while it waits (no polling of the database). A task for
// one agent wakes that agent's polls; pool tasks wake as many polls as there are
// new tasks, oldest waiter first. A poll that lost the race to a task goes back
// to waiting. The hub lives on globalThis: Next bundles route handlers and
// instrumentation separately, and they must share one hub.
import "server-only";

type Waiter = { agentId: string; pool: boolean; wake: () => void };

type Hub = { waiters: Set<Waiter>; generation: number };

const globalForHub = globalThis as unknown as { swarmdeckTaskHub?: Hub };

function hub(): Hub {
  globalForHub.swarmdeckTaskHub ??= { waiters: new Set(), generation: 0 };
  return globalForHub.swarmdeckTaskHub;
}

/** Changes whenever work may have appeared; a poll compares it around its claim attempt. */
export function wakeGeneration(): number {
  return hub().generation;
}

export function waitingPolls(): number {
  return hub().waiters.size;
}

/**
 * Work appeared: `agentId` set wakes that agent's polls (its own task, or a slot
 * freed); null wakes up to `count` polls that may take from the pool.
 */
export function notifyTasks({ agentId, count = 1 }: { agentId: string | null; count?: number }): void {
  const state = hub();
  state.generation += 1;
  let left = count;
  for (const waiter of state.waiters) {
    if (agentId !== null ? waiter.agentId === agentId : waiter.pool && left-- > 0) {
      state.waiters.delete(waiter);
      waiter.wake();
    }
    if (agentId === null && left <= 0) break;
  }
}

/**
 * Wakes every waiting poll to look again (work may have appeared that no
 * announcement reached this process for: task-wakeup.pg.ts).
 */
export function wakeAllPolls(): void {
  const state = hub();
  state.generation += 1;
  for (const waiter of state.waiters) {
    state.waiters.delete(waiter);
    waiter.wake();
  }
}

/**
 * Waits until woken, `timeoutMs` passed, or `signal` aborted. `pool` says whether
 * the agent has room for a pool task (an agent at its limit waits for its own slot).
 */
export function waitForWork({
  agentId,
  pool,
  timeoutMs,
  signal,
}: {
  agentId: string;
  pool: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<"woken" | "timeout"> {
  return new Promise((resolve) => {
    if (timeoutMs <= 0 || signal?.aborted) return resolve("timeout");
    const state = hub();
    const finish = (result: "woken" | "timeout") => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      state.waiters.delete(waiter);
      resolve(result);
    };
    const waiter: Waiter = { agentId, pool, wake: () => finish("woken") };
    const onAbort = () => finish("timeout");
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    state.waiters.add(waiter);
  });
}
