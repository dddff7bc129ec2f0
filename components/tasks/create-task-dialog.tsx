"use client";

// New task: title, description, type, tags, priority, a time limit, and an agent or
// the pool. The API's validation errors appear under their fields, and the first of
// them is brought into view (components/ui/form-errors.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { agentLabel } from "@/lib/agents/agent-label";
import { api, describeError, fieldErrorsOf } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { MAX_TAG_CHARS, MAX_TASK_TITLE_CHARS, MAX_TASK_TYPE_CHARS, TASK_PRIORITY_RANGE, type TaskDto } from "@/lib/contracts/tasks";
import { Dialog, FormActions } from "../ui/dialog";
import { useRevealFirstError } from "../ui/form-errors";
import { Field, Input, Select, Textarea } from "../ui/input";
import { useFocusReturn } from "../use-focus-return";
import { GrantCheckboxes } from "./identity-grant";

const FIELDS = ["title", "description", "type", "tags", "priority", "agentId", "timeLimitMinutes", "identityGrant"] as const;
type Errors = Partial<Record<(typeof FIELDS)[number], string>>;
/** A 404 is the agent the task was given to. */
const fieldErrors = (error: unknown): Errors => fieldErrorsOf(error, FIELDS, { 404: "agentId" });

export function useAgentsForTasks() {
  return useQuery({ queryKey: ["agents"], queryFn: () => api<{ agents: AgentDto[] }>("/api/v1/agents") });
}

export function CreateTaskDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const agents = useAgentsForTasks();
  const [errors, setErrors] = useState<Errors>({});
  const [grant, setGrant] = useState<string[]>([]);
  const problems = useRevealFirstError();
  useFocusReturn(open);

  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<{ task: TaskDto }>("/api/v1/tasks", { method: "POST", body }),
    onSuccess: ({ task }) => {
      toast.success(task.agentName ? `Task created for ${task.agentName}` : "Task created in the pool");
      queryClient.invalidateQueries({ queryKey: ["tasks"] });
      setGrant([]);
      onOpenChange(false);
      router.push(`/tasks/${task.id}`);
    },
    onError: (error) => {
      const byField = fieldErrors(error);
      setErrors(byField);
      if (Object.keys(byField).length === 0) toast.error(describeError(error));
      else problems.reveal();
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setErrors({});
    const tags = String(form.get("tags") ?? "")
      .split(",")
      .map((tag) => tag.trim().toLowerCase())
      .filter(Boolean);
    const agentId = String(form.get("agentId") ?? "");
    // Empty: the agent's capabilities.yaml limit, else the worker's default. The range is the API's to check.
    const limitText = String(form.get("timeLimitMinutes") ?? "").trim();
    const timeLimitMinutes = limitText === "" ? null : Number(limitText);
    if (timeLimitMinutes !== null && !Number.isFinite(timeLimitMinutes)) {
      setErrors({ timeLimitMinutes: "a number of minutes, e.g. 30 (or empty for the agent's default)" });
      problems.reveal();
      return;
    }
    create.mutate({
      title: String(form.get("title") ?? "").trim(),
      description: String(form.get("description") ?? ""),
      type: String(form.get("type") ?? "").trim() || "task",
      tags,
      priority: Number(form.get("priority") ?? 0),
      agentId: agentId || null,
      ...(timeLimitMinutes === null ? {} : { timeLimitMinutes }),
      identityGrant: grant,
    });
  }

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="New task"
      description="Give it to one agent, or leave it in the pool for any free worker."
    >
      <form ref={problems.ref} onSubmit={onSubmit} className="space-y-4" data-testid="create-task-form" noValidate>
        <Field label="Title" htmlFor="task-title" error={errors.title}>
          <Input id="task-title" name="title" placeholder="Fix the flaky login test" autoFocus maxLength={MAX_TASK_TITLE_CHARS} />
        </Field>
        <Field
          label="Description"
          htmlFor="task-description"
          error={errors.description}
          hint="Markdown. The agent reads it as its task prompt."
        >
          <Textarea id="task-description" name="description" rows={5} placeholder="What to do, how to know it is done." />
        </Field>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Type" htmlFor="task-type" error={errors.type} hint="One word, e.g. task, bugfix, review">
            <Input id="task-type" name="type" defaultValue="task" maxLength={MAX_TASK_TYPE_CHARS} autoCapitalize="none" />
          </Field>
          <Field label="Priority" htmlFor="task-priority" error={errors.priority} hint="-100 … 100, higher first">
            <Input
              id="task-priority"
              name="priority"
              type="number"
              inputMode="numeric"
              min={TASK_PRIORITY_RANGE.min}
              max={TASK_PRIORITY_RANGE.max}
              step={1}
              defaultValue={0}
            />
          </Field>
        </div>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Tags" htmlFor="task-tags" error={errors.tags} hint="Comma separated, e.g. bug, frontend">
            <Input id="task-tags" name="tags" placeholder="bug, frontend" maxLength={20 * (MAX_TAG_CHARS + 2)} autoCapitalize="none" />
          </Field>
          <Field
            label="Time limit (minutes)"
            htmlFor="task-time-limit"
            error={errors.timeLimitMinutes}
            hint="The worker stops the agent after it. Empty: the agent's default."
          >
            <Input
              id="task-time-limit"
              name="timeLimitMinutes"
              type="number"
              inputMode="decimal"
              min={0.05}
              max={7 * 24 * 60}
              step="any"
              placeholder="agent's default"
            />
          </Field>
        </div>
        <Field label="Agent" htmlFor="task-agent" error={errors.agentId}>
          <Select id="task-agent" name="agentId" defaultValue="">
            <option value="">The pool (any free worker)</option>
            {(agents.data?.agents ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agentLabel(agent)}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label="Identity rights"
          error={errors.identityGrant}
          hint="An explicit request: the agent may change these files directly during this task, whatever its security profile."
        >
          <GrantCheckboxes name="new-task" value={grant} onChange={setGrant} />
        </Field>
        <FormActions
          onCancel={() => onOpenChange(false)}
          submitLabel="Create task"
          busy={create.isPending}
          className="pt-2"
          testId="create-task-submit"
        />
      </form>
    </Dialog>
  );
}
