// The task bundle (DESIGN.md "Worker protocol"): everything a worker needs to run
// one claimed task: the identity files, the composed setup script, the system
// prompt, the task prompt (with its parent's context and relevant memories).
import "server-only";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { getGlobalSetupScript } from "@/lib/config/swarm-config";
import type { Bundle } from "@/lib/contracts/tasks";
import { prepare, withSqlite } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { buildSystemPrompt } from "@/lib/identity/prompt";
import { getWorkspaceFiles } from "@/lib/identity/workspace-files";
import { memoriesForTask } from "@/lib/memory/task-memories";
import { composeSetupScript } from "@/lib/setup-script/compose";
import { type TaskRow, toTaskDto } from "./task-rows";
import { ownTaskSync } from "./worker-tasks";

type Parent = { id: string; title: string; status: string; output: string | null; failureReason: string | null };

const PARENT_OUTPUT_CHARS = 8_000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n\n[... cut at ${max} characters]` : text;
}

/** The task prompt: title, description, the parent task's outcome, then the memory section. */
export function buildTaskPrompt({
  task,
  parent,
  memorySection,
}: {
  task: Pick<TaskRow, "id" | "title" | "description" | "type" | "tags">;
  parent: Parent | null;
  memorySection: string;
}): string {
  const parts = [`# Task: ${task.title}`];
  const tags = JSON.parse(task.tags) as string[];
  parts.push(`Task id: ${task.id} · type: ${task.type}${tags.length > 0 ? ` · tags: ${tags.join(", ")}` : ""}`);
  if (task.description.trim()) parts.push(task.description.trim());
  if (parent) {
    const outcome =
      parent.status === "failed" && parent.failureReason
        ? `It failed:\n\n${clip(parent.failureReason, PARENT_OUTPUT_CHARS)}`
        : parent.output
          ? `Its output:\n\n${clip(parent.output, PARENT_OUTPUT_CHARS)}`
          : `It is ${parent.status} and has no output yet.`;
    parts.push(`## Parent task: ${parent.title}\n\nThis task follows up on task ${parent.id} (${parent.status}). ${outcome}`);
  }
  if (memorySection.trim()) parts.push(memorySection.trim());
  return `${parts.join("\n\n")}\n`;
}

export async function getTaskBundle({ principal, taskId }: { principal: WorkerPrincipal; taskId: string }): Promise<Bundle> {
  const { task, parent } = await withSqlite((sqlite) => {
    const task = ownTaskSync(sqlite, principal, taskId);
    if (task.status !== "in_progress") {
      throw new ApiError("conflict", `The task is ${task.status}; a bundle is only served for a task in progress`, { status: task.status });
    }
    const parent = task.parentTaskId
      ? ((prepare(sqlite, "SELECT id, title, status, output, failureReason FROM Task WHERE id = ?").get(task.parentTaskId) as
          | Parent
          | undefined) ?? null)
      : null;
    return { task, parent };
  });
  const agentId = principal.agent.id;
  const [files, prompt, globalScript, memory] = await Promise.all([
    getWorkspaceFiles({ agentId }),
    buildSystemPrompt({ agentId }),
    getGlobalSetupScript(),
    memoriesForTask({ agentId, taskId, query: `${task.title}\n${task.description}` }),
  ]);
  const agentScript = files.find((file) => file.kind === "SETUP_SCRIPT")?.content ?? "";
  return {
    task: toTaskDto(task),
    files,
    setupScript: { global: globalScript, agent: agentScript, composed: composeSetupScript({ global: globalScript, agent: agentScript }) },
    systemPrompt: prompt.systemPrompt,
    taskPrompt: buildTaskPrompt({ task, parent, memorySection: memory.promptSection }),
    memories: memory.memories,
  };
}
