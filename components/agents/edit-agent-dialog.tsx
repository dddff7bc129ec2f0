"use client";

// Edit an agent's details: its name (a slug), display name, description and role.
// Only what changed is sent; the API's errors (a taken name, validation) appear
// under their field and the form keeps what was typed. The security profile has
// its own card (admins only).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pencil } from "lucide-react";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { api, describeError, fieldErrorsOf } from "@/lib/api-client";
import { type AgentDto, MAX_DESCRIPTION_CHARS, MAX_DISPLAY_NAME_CHARS } from "@/lib/contracts/agents";
import { AGENT_ROLES, type AgentRole } from "@/lib/contracts/common";
import { Button } from "../ui/button";
import { Dialog, FormActions } from "../ui/dialog";
import { FormError, useRevealFirstError } from "../ui/form-errors";
import { Field, Input, Select, Textarea } from "../ui/input";
import { useFocusReturn } from "../use-focus-return";

type Draft = { name: string; displayName: string; description: string; role: AgentRole };
type FieldErrors = Partial<Record<keyof Draft, string>>;
const FIELD_IDS: Record<keyof Draft, string> = {
  name: "edit-agent-name",
  displayName: "edit-agent-display-name",
  description: "edit-agent-description",
  role: "edit-agent-role",
};

const ROLE_HELP: Record<AgentRole, string> = {
  worker: "Works on the tasks it is given.",
  lead: "Coordinates the swarm: its worker may read every agent's tasks and reports and send learnings to other agents.",
};

/** The API's answer as messages per field (a 409 is the taken name); empty when it names no field. */
const fieldErrors = (error: unknown): FieldErrors => fieldErrorsOf(error, Object.keys(FIELD_IDS) as (keyof Draft)[], { 409: "name" });

function draftOf(agent: AgentDto): Draft {
  return { name: agent.name, displayName: agent.displayName, description: agent.description, role: agent.role };
}

/** What differs from the agent, trimmed as the API stores it. */
function changesOf(agent: AgentDto, draft: Draft): Partial<Draft> {
  const next: Draft = {
    name: draft.name.trim(),
    displayName: draft.displayName.trim(),
    description: draft.description.trim(),
    role: draft.role,
  };
  const current = draftOf(agent);
  return Object.fromEntries(
    (Object.keys(next) as (keyof Draft)[]).filter((key) => next[key] !== current[key]).map((key) => [key, next[key]]),
  );
}

/** Whether `agent` is the swarm's only lead (as far as the agents list knows). */
function useOnlyLead(agent: AgentDto, enabled: boolean): boolean {
  const agents = useQuery({
    queryKey: ["agents"],
    queryFn: () => api<{ agents: AgentDto[] }>("/api/v1/agents"),
    enabled: enabled && agent.role === "lead",
  });
  if (agent.role !== "lead" || !agents.data) return false;
  return !agents.data.agents.some((other) => other.role === "lead" && other.id !== agent.id);
}

export function EditAgentDialog({ agent, open, onOpenChange }: { agent: AgentDto; open: boolean; onOpenChange: (open: boolean) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [wasOpen, setWasOpen] = useState(open);
  const problems = useRevealFirstError();
  useFocusReturn(open);
  // Each opening starts from the agent as it is now.
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setDraft(draftOf(agent));
      setErrors({});
      setFormError(null);
    }
  }
  const onlyLead = useOnlyLead(agent, open);

  const save = useMutation({
    mutationFn: (body: Partial<Draft>) => api<{ agent: AgentDto }>(`/api/v1/agents/${agent.id}`, { method: "PATCH", body }),
    onSuccess: ({ agent: updated }, body) => {
      queryClient.setQueryData(["agent", agent.id], { agent: updated });
      queryClient.invalidateQueries({ queryKey: ["agent", agent.id] });
      // The agents list, the identity pages (["agents", id]) and whatever shows its name.
      queryClient.invalidateQueries({ queryKey: ["agents"] });
      queryClient.invalidateQueries({ queryKey: ["tasks"] });
      queryClient.invalidateQueries({ queryKey: ["proposals"] });
      const renamed = body.name !== undefined ? `${agent.name} is now ${updated.name}` : `Details of ${updated.name} saved`;
      toast.success(renamed, body.role !== undefined ? { description: `Role: ${updated.role}` } : undefined);
      onOpenChange(false);
    },
    onError: (error) => {
      const byField = fieldErrors(error);
      setErrors(byField);
      setFormError(Object.keys(byField).length === 0 ? describeError(error) : null);
      // The first field the API refused (or the message above them) in view and focused, so it can be corrected at once.
      problems.reveal();
    },
  });

  function set<K extends keyof Draft>(key: K, value: Draft[K]) {
    setDraft((before) => ({ ...before, [key]: value }));
    if (errors[key]) setErrors((before) => ({ ...before, [key]: undefined }));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = changesOf(agent, draft);
    setErrors({});
    setFormError(null);
    if (Object.keys(body).length === 0) {
      onOpenChange(false);
      return;
    }
    save.mutate(body);
  }

  const renaming = draft.name.trim() !== agent.name;
  const roleChanged = draft.role !== agent.role;

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={`Edit ${agent.name}`} description="Its name, how it is described, and its role.">
      <form ref={problems.ref} onSubmit={onSubmit} className="space-y-4" noValidate data-testid="edit-agent-form">
        {formError ? <FormError testId="edit-agent-error">{formError}</FormError> : null}
        <Field
          label="Name"
          htmlFor={FIELD_IDS.name}
          error={errors.name}
          hint={
            renaming
              ? `A slug. Its worker keeps committing as ${agent.name} until it restarts; the old name becomes free for another agent.`
              : "A slug: lower-case letters, digits and dashes (its git identity and workspace name)."
          }
        >
          <Input
            id={FIELD_IDS.name}
            name="name"
            value={draft.name}
            onChange={(event) => set("name", event.target.value)}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={48}
          />
        </Field>
        <Field label="Display name" htmlFor={FIELD_IDS.displayName} error={errors.displayName} hint="Optional, shown beside the name.">
          <Input
            id={FIELD_IDS.displayName}
            name="displayName"
            value={draft.displayName}
            onChange={(event) => set("displayName", event.target.value)}
            placeholder="Backend developer"
            autoComplete="off"
            maxLength={MAX_DISPLAY_NAME_CHARS}
          />
        </Field>
        <Field
          label="Description"
          htmlFor={FIELD_IDS.description}
          error={errors.description}
          hint={
            <span className="flex justify-between gap-3">
              <span>What it is for, for the people who run it.</span>
              <span className="shrink-0 tabular-nums" data-testid="edit-agent-description-count">
                {draft.description.length} / {MAX_DESCRIPTION_CHARS}
              </span>
            </span>
          }
        >
          <Textarea
            id={FIELD_IDS.description}
            name="description"
            rows={4}
            value={draft.description}
            onChange={(event) => set("description", event.target.value)}
            placeholder="Owns the API and the database migrations."
            maxLength={MAX_DESCRIPTION_CHARS}
          />
        </Field>
        <Field label="Role" htmlFor={FIELD_IDS.role} error={errors.role} hint={ROLE_HELP[draft.role]}>
          <Select id={FIELD_IDS.role} name="role" value={draft.role} onChange={(event) => set("role", event.target.value as AgentRole)}>
            {AGENT_ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </Select>
        </Field>
        {roleChanged ? (
          <div className="rounded-md border border-border bg-muted/60 px-3 py-2 text-xs text-fg-muted" data-testid="edit-agent-role-note">
            {draft.role === "lead" ? (
              <>
                From its worker's next request it may read the whole swarm and send learnings to other agents, and schedules aimed at the
                lead role run on it too.
              </>
            ) : (
              <>
                From its worker's next request it loses the swarm-wide reads and learnings, and schedules aimed at the lead role no longer
                run on it.
                {onlyLead ? (
                  <strong className="mt-1 block text-fg">It is the only lead: those schedules will have no agent to run on.</strong>
                ) : null}
              </>
            )}
          </div>
        ) : null}
        <FormActions
          onCancel={() => onOpenChange(false)}
          submitLabel="Save details"
          busy={save.isPending}
          className="pt-1"
          testId="save-agent-details"
        />
      </form>
    </Dialog>
  );
}

/** The "Edit details" button and its dialog; the caller shows it only to those who may write. */
export function EditAgentDetails({ agent }: { agent: AgentDto }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)} data-testid="edit-agent-details">
        <Pencil className="size-4" aria-hidden /> Edit details
      </Button>
      <EditAgentDialog agent={agent} open={open} onOpenChange={setOpen} />
    </>
  );
}
