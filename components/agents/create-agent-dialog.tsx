"use client";

// New agent: a slug name (the API's validation errors appear under the field, brought
// into view: components/ui/form-errors.tsx),
// a role, for admins a security profile, and how its identity starts: from the
// templates, or by letting it bootstrap itself (its first task runs BOOTSTRAP.md).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { api, describeError, fieldErrorsOf } from "@/lib/api-client";
import { type AgentDto, MAX_DISPLAY_NAME_CHARS } from "@/lib/contracts/agents";
import type { TemplateOffer } from "../schedules/lead-templates-card";
import { useCan } from "../session-user";
import { Dialog, FormActions } from "../ui/dialog";
import { useRevealFirstError } from "../ui/form-errors";
import { Field, Input, Select } from "../ui/input";
import { useFocusReturn } from "../use-focus-return";
import { LeadScheduleOffer } from "./lead-schedule-offer";
import { PROFILE_HELP } from "./security-profile";

const FIELDS = ["name", "displayName", "role", "securityProfile", "identityStart"] as const;
type FieldErrors = Partial<Record<(typeof FIELDS)[number], string>>;
/** A 409 is a taken name. */
const fieldErrors = (error: unknown): FieldErrors => fieldErrorsOf(error, FIELDS, { 409: "name" });

const IDENTITY_START_OPTIONS = [
  {
    value: "templates",
    label: "Start from templates",
    hint: "SOUL.md, IDENTITY.md, USER.md and the rest from the default templates; edit them before its first task.",
  },
  {
    value: "bootstrap",
    label: "Let it bootstrap itself",
    hint: "Its first task runs the BOOTSTRAP.md ritual under AGENT.md's rules and writes its own SOUL, IDENTITY and USER.",
  },
] as const;

export function CreateAgentDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const can = useCan();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [profile, setProfile] = useState("standard");
  const problems = useRevealFirstError();
  useFocusReturn(open);

  const [offer, setOffer] = useState<{ agent: AgentDto; offer: TemplateOffer } | null>(null);

  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api<{ agent: AgentDto; scheduleOffer: TemplateOffer | null }>("/api/v1/agents", { method: "POST", body }),
    onSuccess: ({ agent, scheduleOffer }) => {
      toast.success(`Agent ${agent.name} created`);
      queryClient.invalidateQueries({ queryKey: ["agents"] });
      onOpenChange(false);
      // The swarm's first lead: offer its learning-loop schedules before moving on.
      if (scheduleOffer && can.write) setOffer({ agent, offer: scheduleOffer });
      else router.push(`/agents/${agent.id}`);
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
    const displayName = String(form.get("displayName") ?? "").trim();
    create.mutate({
      name: String(form.get("name") ?? "").trim(),
      ...(displayName ? { displayName } : {}),
      role: String(form.get("role")),
      ...(can.admin ? { securityProfile: profile } : {}),
      identityStart: String(form.get("identityStart") ?? "templates"),
    });
  }

  return (
    <>
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!next) setErrors({});
          onOpenChange(next);
        }}
        title="Create an agent"
        description="An agent starts with default identity files; connect a worker with one of its tokens."
      >
        <form ref={problems.ref} onSubmit={onSubmit} className="space-y-4" noValidate data-testid="create-agent-form">
          <Field
            label="Name"
            htmlFor="agent-name"
            error={errors.name}
            hint="A slug: lower-case letters, digits and dashes (it names the agent's workspace and git identity)."
          >
            <Input
              id="agent-name"
              name="name"
              placeholder="backend-dev"
              autoComplete="off"
              autoFocus
              maxLength={48}
              autoCapitalize="none"
            />
          </Field>
          <Field label="Display name" htmlFor="agent-display-name" error={errors.displayName} hint="Optional.">
            <Input
              id="agent-display-name"
              name="displayName"
              placeholder="Backend developer"
              autoComplete="off"
              maxLength={MAX_DISPLAY_NAME_CHARS}
            />
          </Field>
          <Field label="Role" htmlFor="agent-role" error={errors.role} hint="A lead coordinates workers and can send them learnings.">
            <Select id="agent-role" name="role" defaultValue="worker">
              <option value="worker">worker</option>
              <option value="lead">lead</option>
            </Select>
          </Field>
          <Field
            label="Security profile"
            htmlFor="agent-profile"
            error={errors.securityProfile}
            hint={
              can.admin
                ? PROFILE_HELP[profile as keyof typeof PROFILE_HELP]
                : "New agents start as standard; only an admin can choose another profile."
            }
          >
            <Select id="agent-profile" value={profile} onChange={(event) => setProfile(event.target.value)} disabled={!can.admin}>
              <option value="paranoid">paranoid</option>
              <option value="standard">standard</option>
              <option value="power">power</option>
            </Select>
          </Field>
          <fieldset className="space-y-2" data-testid="identity-start" data-field>
            <legend className="text-sm font-medium text-fg">Identity</legend>
            {IDENTITY_START_OPTIONS.map((option) => (
              <label
                key={option.value}
                className="flex items-start gap-2 rounded-md border border-border px-3 py-2 text-sm has-[:checked]:border-accent"
              >
                <input
                  type="radio"
                  name="identityStart"
                  value={option.value}
                  defaultChecked={option.value === "templates"}
                  className="mt-0.5"
                  data-testid={`identity-start-${option.value}`}
                />
                <span>
                  <span className="font-medium">{option.label}</span>
                  <span className="block text-xs text-fg-muted">{option.hint}</span>
                </span>
              </label>
            ))}
            {errors.identityStart ? (
              <p className="text-xs text-danger" role="alert" data-field-error>
                {errors.identityStart}
              </p>
            ) : null}
          </fieldset>
          <FormActions onCancel={() => onOpenChange(false)} submitLabel="Create agent" busy={create.isPending} className="pt-1" />
        </form>
      </Dialog>
      <LeadScheduleOffer
        offer={offer?.offer ?? null}
        leadName={offer?.agent.name ?? ""}
        onClose={() => {
          const agent = offer?.agent;
          setOffer(null);
          if (agent) router.push(`/agents/${agent.id}`);
        }}
      />
    </>
  );
}
