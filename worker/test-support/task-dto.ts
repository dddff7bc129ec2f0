// A task as the app's worker API describes it (lib/contracts/tasks.ts), for unit
// tests that hand the worker's functions a bundle without a server.
import type { TaskDto } from "../../lib/contracts/tasks";

export function taskDto(id: string, overrides: Partial<TaskDto> = {}): TaskDto {
  const now = new Date().toISOString();
  return {
    id,
    title: `task ${id}`,
    description: "",
    type: "task",
    tags: [],
    priority: 0,
    status: "in_progress",
    agentId: "agent-1",
    agentName: "ada",
    parentTaskId: null,
    attempts: 1,
    claimedAt: now,
    heartbeatAt: now,
    finishedAt: null,
    progress: null,
    output: null,
    summary: null,
    failureReason: null,
    identityGrant: [],
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}
