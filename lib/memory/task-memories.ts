// Memory's side of the task lifecycle and the bundle. (Owned by the memory work;
// the task work calls these.)
import "server-only";

export type InjectedMemory = { id: number; name: string; content: string; score: number; scope: string; source: string };

/**
 * The memories most relevant to a task, above the injection threshold, and the
 * task-prompt section that carries them. Records the injection (retrieval health).
 */
export async function memoriesForTask(_args: {
  agentId: string;
  taskId: string;
  query: string;
}): Promise<{ memories: InjectedMemory[]; promptSection: string }> {
  return { memories: [], promptSection: "" };
}

/**
 * After a task finished: its output (completed) or its lesson (failed) becomes
 * memory. Called after the task's transaction committed; must not throw.
 */
export async function indexTaskOutcome(_args: {
  task: {
    id: string;
    title: string;
    description: string;
    type: string;
    tags: string[];
    agentId: string | null;
    status: "completed" | "failed";
    output: string | null;
    failureReason: string | null;
    summary: string | null;
  };
}): Promise<void> {}
