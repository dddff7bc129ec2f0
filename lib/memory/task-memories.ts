// Memory's side of the task lifecycle and the bundle (reference 001: P1, P3,
// P4, P7). The task work calls these two functions.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { usesPostgres, writeTransaction } from "@/lib/db";
import { afterStore, type NewMemory, storeMemoriesSync } from "./memory-store";
import { DEFAULT_INJECT_THRESHOLD } from "./scoring";
import { searchMemories } from "./search";

export type InjectedMemory = { id: number; name: string; content: string; score: number; scope: string; source: string };

const INJECT_LIMIT = 5;
const SNIPPET_CHARS = 600;

export function injectThreshold(): number {
  const value = Number(process.env.SWARMDECK_MEMORY_INJECT_THRESHOLD);
  return Number.isFinite(value) && value >= 0 && value <= 1 && process.env.SWARMDECK_MEMORY_INJECT_THRESHOLD?.trim()
    ? value
    : DEFAULT_INJECT_THRESHOLD;
}

/** The "Relevant past context" section of a task prompt. */
export function memoryPromptSection(memories: InjectedMemory[]): string {
  if (memories.length === 0) return "";
  const lines = memories.map((memory) => {
    const body = memory.content.length > SNIPPET_CHARS ? `${memory.content.slice(0, SNIPPET_CHARS)}…` : memory.content;
    return `### ${memory.name} (${memory.source}, relevance ${memory.score.toFixed(2)})\n${body}`;
  });
  return [
    "## Relevant past context",
    "",
    "Memories from earlier work that look relevant to this task (lessons from failures and lead feedback first in mind). Use them; verify before relying on details.",
    "",
    lines.join("\n\n"),
  ].join("\n");
}

/**
 * The memories most relevant to a task, above the injection threshold, and the
 * task-prompt section that carries them. Records the injection (retrieval health).
 */
export async function memoriesForTask(args: {
  agentId: string;
  taskId: string;
  query: string;
}): Promise<{ memories: InjectedMemory[]; promptSection: string }> {
  const query = args.query.trim().slice(0, 2000);
  if (!query) return { memories: [], promptSection: "" };
  try {
    const { results } = await searchMemories({
      query,
      limit: INJECT_LIMIT,
      scope: "all",
      viewer: { kind: "agent", agentId: args.agentId, isLead: false },
      minScore: injectThreshold(),
      record: { kind: "injection", agentId: args.agentId, taskId: args.taskId },
    });
    const memories = results.map(({ id, name, content, score, scope, source }) => ({ id, name, content, score, scope, source }));
    return { memories, promptSection: memoryPromptSection(memories) };
  } catch (error) {
    console.error("[swarmdeck] memory injection failed", error);
    return { memories: [], promptSection: "" };
  }
}

type FinishedTask = {
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

/** The memories a finished task leaves (P1, P3); the session summary is separate (P4). */
export function outcomeMemories(task: FinishedTask): NewMemory[] {
  const items: NewMemory[] = [];
  const title = task.title.slice(0, 150);
  const head = `Task: ${task.title}${task.description ? `\n\n${task.description.slice(0, 1500)}` : ""}`;
  if (task.status === "failed") {
    const reason = task.failureReason?.trim() || "(no reason given)";
    const output = task.output?.trim() ? `\n\nOutput before failing:\n${task.output.trim().slice(0, 4000)}` : "";
    items.push({
      name: `Failed: ${title}`,
      content: `${head}\n\nFailure:\n${reason}${output}\n\nContext: This task failed. Learn from this to avoid repeating the mistake.`,
      scope: "agent",
      source: "task_failure",
      agentId: task.agentId,
      taskId: task.id,
    });
    return items;
  }
  const output = task.output?.trim() ?? "";
  if (output.length < 20) return items;
  const content = `${head}\n\nOutput:\n${output}`;
  items.push({ name: `Completed: ${title}`, content, scope: "agent", source: "task_completion", agentId: task.agentId, taskId: task.id });
  const tags = task.tags.map((tag) => tag.toLowerCase());
  if (task.type === "research" || tags.includes("knowledge") || tags.includes("shared")) {
    items.push({
      name: `Shared: ${title}`,
      content: `Task completed by agent ${task.agentId ?? "unknown"}:\n\n${content}`,
      scope: "swarm",
      source: "task_completion",
      agentId: task.agentId,
      taskId: task.id,
    });
  }
  return items;
}

/**
 * After a task finished: its output (completed) or its lesson (failed) becomes
 * memory. Called after the task's transaction committed; must not throw.
 */
export async function indexTaskOutcome(args: { task: FinishedTask }): Promise<void> {
  const { task } = args;
  try {
    if (!task.agentId) return;
    const items = outcomeMemories(task);
    if (items.length > 0 && usesPostgres()) await (await import("./memory-store.pg")).storeSystemMemoriesPg(items);
    else if (items.length > 0) {
      const stored = await writeTransaction((sqlite) => storeMemoriesSync(sqlite, { items, actor: SYSTEM_ACTOR }));
      afterStore(stored);
    }
  } catch (error) {
    console.error(`[swarmdeck] indexing the outcome of task ${task.id} failed`, error);
  }
}
