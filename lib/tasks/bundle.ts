// The task bundle (docs/architecture.md "Worker protocol"): everything a worker needs to run
// one claimed task: the identity files, the composed setup script, the system
// prompt, the task prompt (with its parent's context and relevant memories).
import "server-only";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { getGlobalSetupScript } from "@/lib/config/swarm-config";
import { IDENTITY_FILE_NAMES, type IdentityKind } from "@/lib/contracts/identity";
import type { Bundle } from "@/lib/contracts/tasks";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { grantBootstrapRitual } from "@/lib/identity/bootstrap";
import { decisionsPromptSection, decisionsSincePreviousTask } from "@/lib/identity/decisions";
import { buildSystemPrompt } from "@/lib/identity/prompt";
import { getWorkspaceFiles } from "@/lib/identity/workspace-files";
import { leadFeedbackSection, recentLeadFeedback } from "@/lib/memory/lead-feedback";
import { memoriesForTask, memoryPromptSection } from "@/lib/memory/task-memories";
import { composeSetupScript } from "@/lib/setup-script/compose";
import { type TaskRow, toTaskDto } from "./task-rows";
import { ownTaskSync } from "./worker-tasks";

type Parent = { id: string; title: string; status: string; output: string | null; failureReason: string | null };

const PARENT_OUTPUT_CHARS = 8_000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n\n[... cut at ${max} characters]` : text;
}

/** The task prompt: title, description, the parent task's outcome, the lead's feedback, then the memory section. */
export function buildTaskPrompt({
  task,
  parent,
  feedbackSection = "",
  memorySection,
  decisionSection = "",
}: {
  task: Pick<TaskRow, "id" | "title" | "description" | "type" | "tags" | "identityGrant">;
  parent: Parent | null;
  feedbackSection?: string;
  memorySection: string;
  /** Decisions on the agent's proposals since its previous task (lib/identity/decisions.ts). */
  decisionSection?: string;
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
  if (feedbackSection.trim()) parts.push(feedbackSection.trim());
  const grant = JSON.parse(task.identityGrant) as IdentityKind[];
  if (grant.length > 0) {
    const files = grant.map((kind) => IDENTITY_FILE_NAMES[kind]).join(", ");
    parts.push(
      `## Identity rights for this task\n\nAn operator granted this task the right to change ${files} directly: your changes to them during this task are applied (an explicit request), whatever your security profile.`,
    );
  }
  if (decisionSection.trim()) parts.push(decisionSection.trim());
  if (memorySection.trim()) parts.push(memorySection.trim());
  return `${parts.join("\n\n")}\n`;
}

export async function getTaskBundle({ principal, taskId }: { principal: WorkerPrincipal; taskId: string }): Promise<Bundle> {
  const rows = usesPostgres() ? await (await import("./bundle.pg")).bundleRowsPg(principal, taskId) : null;
  const { task, parent, feedback } =
    rows ??
    (await withSqlite((sqlite) => {
      const task = ownTaskSync(sqlite, principal, taskId);
      if (task.status !== "in_progress") {
        throw new ApiError("conflict", `The task is ${task.status}; a bundle is only served for a task in progress`, {
          status: task.status,
        });
      }
      const parent = task.parentTaskId
        ? ((prepare(sqlite, "SELECT id, title, status, output, failureReason FROM Task WHERE id = ?").get(task.parentTaskId) as
            | Parent
            | undefined) ?? null)
        : null;
      return { task, parent, feedback: recentLeadFeedback(sqlite, { agentId: principal.agent.id, now: Date.now() }) };
    }));
  const agentId = principal.agent.id;
  const [files, prompt, globalScript, memory, decisions] = await Promise.all([
    getWorkspaceFiles({ agentId }),
    buildSystemPrompt({ agentId }),
    getGlobalSetupScript(),
    memoriesForTask({ agentId, taskId, query: `${task.title}\n${task.description}` }),
    decisionsSincePreviousTask({ agentId, taskId }),
  ]);
  // The bootstrap ritual's task may write SOUL, IDENTITY and USER directly.
  if (prompt.bootstrap) task.identityGrant = JSON.stringify(await grantBootstrapRitual({ taskId, agentId }));
  const agentScript = files.find((file) => file.kind === "SETUP_SCRIPT")?.content ?? "";
  // Feedback shown whole in its own section is not repeated in the memory section.
  const shown = new Set(feedback.map((item) => item.id));
  return {
    task: toTaskDto(task),
    files,
    setupScript: { global: globalScript, agent: agentScript, composed: composeSetupScript({ global: globalScript, agent: agentScript }) },
    systemPrompt: prompt.systemPrompt,
    taskPrompt: buildTaskPrompt({
      task,
      parent,
      feedbackSection: leadFeedbackSection(feedback),
      memorySection: memoryPromptSection(memory.memories.filter((item) => !shown.has(item.id))),
      decisionSection: decisionsPromptSection(decisions),
    }),
    memories: memory.memories,
    decisions,
  };
}
