// Types for scripts/idle-memory.mjs (plain JS: the production server loads it without tsx).
export function idleCollector(): { tick(cpuMs: number): boolean };
export function giveBackMemoryWhenIdle(options?: { everyMs?: number }): () => void;
