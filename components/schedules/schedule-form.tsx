"use client";

// Create or edit a schedule: cron with a plain reading and its next runs (checked
// by the server as you type), the target agent, and the task it creates. What the
// API refuses appears under its field, the first of them brought into view
// (components/ui/form-errors.tsx).
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import type { z } from "zod";
import { FormActions } from "@/components/ui/dialog";
import { useRevealFirstError } from "@/components/ui/form-errors";
import { Field, Input, Select, Textarea } from "@/components/ui/input";
import { useUnsavedChangesGuard } from "@/components/unsaved-guard";
import { agentLabel } from "@/lib/agents/agent-label";
import { api, describeError } from "@/lib/api-client";
import type { listAgentsResponseSchema } from "@/lib/contracts/agents";
import type { ScheduleDto } from "@/lib/contracts/schedules";
import { scheduleTimeText } from "./schedule-time";

type Template = {
  key: string;
  name: string;
  cron: string;
  taskTitle: string;
  taskDescription: string;
  taskType: string;
  taskTags: string[];
  targetKind: TargetKind;
};
type TargetKind = ScheduleDto["targetKind"];

const TARGETS: Array<{ kind: TargetKind; label: string; hint: string }> = [
  { kind: "agent", label: "One agent", hint: "A task for this agent at each run." },
  { kind: "leads", label: "The lead(s)", hint: "A task for each lead agent at each run." },
  { kind: "all", label: "Every agent", hint: "One task per agent at each run; offline agents are skipped, saying so." },
  { kind: "role", label: "Every agent with a role", hint: "One task per agent with the role." },
  { kind: "tag", label: "Every agent with a tag", hint: "One task per agent whose capabilities include the tag." },
  { kind: "pool", label: "The pool", hint: "One unassigned task that any agent may take." },
];
/** The fields the form shows the API's messages under. */
const FORM_FIELDS = [
  "name",
  "cron",
  "timezone",
  "agentId",
  "targetValue",
  "taskTitle",
  "taskDescription",
  "taskType",
  "taskTags",
  "taskPriority",
] as const;
/** The server's reading of the cron and time zone; `field` says which of the two a problem is about. */
type Preview = { valid: boolean; error: string | null; field: "cron" | "timezone" | null; description: string | null; next: string[] };

export type ScheduleDraft = {
  name: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  targetKind: TargetKind;
  targetValue: string;
  agentId: string;
  taskTitle: string;
  taskDescription: string;
  taskType: string;
  taskTags: string;
  taskPriority: number;
  templateKey: string | null;
};

export function draftFrom(schedule?: ScheduleDto): ScheduleDraft {
  return {
    name: schedule?.name ?? "",
    cron: schedule?.cron ?? "0 9 * * 1",
    timezone: schedule?.timezone ?? "UTC",
    enabled: schedule?.enabled ?? false,
    targetKind: schedule?.targetKind ?? "pool",
    targetValue: schedule?.targetValue ?? "",
    agentId: schedule?.agentId ?? "",
    taskTitle: schedule?.taskTitle ?? "",
    taskDescription: schedule?.taskDescription ?? "",
    taskType: schedule?.taskType ?? "task",
    taskTags: schedule?.taskTags.join(", ") ?? "",
    taskPriority: schedule?.taskPriority ?? 0,
    templateKey: schedule?.templateKey ?? null,
  };
}

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

export function ScheduleForm({ schedule, onDone }: { schedule?: ScheduleDto; onDone: () => void }) {
  const [draft, setDraft] = useState<ScheduleDraft>(() => draftFrom(schedule));
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const problems = useRevealFirstError();
  const [initial] = useState(() => JSON.stringify(draftFrom(schedule)));
  useUnsavedChangesGuard(
    !busy && JSON.stringify(draft) !== initial,
    "The schedule form has unsaved changes. Leave this page and lose them?",
  );
  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api<z.infer<typeof listAgentsResponseSchema>>("/api/v1/agents") });
  const templates = useQuery({
    queryKey: ["schedule-templates"],
    queryFn: () => api<{ templates: Template[] }>("/api/v1/schedules/templates"),
  });
  const timing = useDebounced({ cron: draft.cron, timezone: draft.timezone }, 250);
  const preview = useQuery({
    queryKey: ["cron-preview", timing],
    // The zone goes with the answer: while a newer one loads, the last answer stays up
    // (placeholderData), and its times and label must name the zone it was computed in.
    queryFn: async () => ({
      ...(await api<Preview>(`/api/v1/schedules/preview?${new URLSearchParams(timing)}`)),
      timezone: timing.timezone,
    }),
    placeholderData: (previous) => previous,
  });
  const set = <K extends keyof ScheduleDraft>(key: K, value: ScheduleDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  function applyTemplate(key: string) {
    const template = templates.data?.templates.find((t) => t.key === key);
    if (!template) return;
    setDraft((d) => ({
      ...d,
      name: template.name,
      cron: template.cron,
      taskTitle: template.taskTitle,
      taskDescription: template.taskDescription,
      taskType: template.taskType,
      taskTags: template.taskTags.join(", "),
      targetKind: template.targetKind,
      targetValue: "",
      agentId: "",
      templateKey: template.key,
    }));
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFieldErrors({});
    const payload = {
      name: draft.name,
      cron: draft.cron,
      timezone: draft.timezone,
      enabled: draft.enabled,
      targetKind: draft.targetKind,
      targetValue: draft.targetKind === "role" || draft.targetKind === "tag" ? draft.targetValue : null,
      agentId: draft.targetKind === "agent" ? draft.agentId || null : null,
      taskTitle: draft.taskTitle,
      taskDescription: draft.taskDescription,
      taskType: draft.taskType,
      taskTags: draft.taskTags
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean),
      taskPriority: draft.taskPriority,
      ...(schedule ? {} : { templateKey: draft.templateKey }),
    };
    try {
      if (schedule) await api(`/api/v1/schedules/${schedule.id}`, { method: "PATCH", body: payload });
      else await api("/api/v1/schedules", { method: "POST", body: payload });
      toast.success(schedule ? "Schedule saved" : "Schedule created");
      onDone();
    } catch (error) {
      const details = (error as { details?: Array<{ path?: string; message?: string }> }).details;
      // Keyed by field ("taskTags.1" is the Tags box's); the first problem of each field.
      const byField = Array.isArray(details)
        ? Object.fromEntries(details.map((d) => [d.path?.split(".")[0] ?? "", d.message ?? ""]).reverse())
        : {};
      setFieldErrors(byField);
      // Under its field when the form has one for it; anything else (a template gone meanwhile, a lost connection) as a toast.
      if (FORM_FIELDS.some((field) => byField[field])) problems.reveal();
      else toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }

  const p = preview.data;
  // The live check's problem goes under the field it is about (an unknown time zone under Time zone).
  const liveProblem = (field: "cron" | "timezone") => (p && !p.valid && (p.field ?? "cron") === field ? (p.error ?? undefined) : undefined);
  return (
    <form ref={problems.ref} onSubmit={submit} className="space-y-4" data-testid="schedule-form" noValidate>
      {!schedule ? (
        <Field label="Start from a template" htmlFor="schedule-template" hint="Optional: fills in the fields below.">
          <Select id="schedule-template" defaultValue="" onChange={(e) => applyTemplate(e.target.value)}>
            <option value="">Blank schedule</option>
            {templates.data?.templates.map((t) => (
              <option key={t.key} value={t.key}>
                {t.name}
              </option>
            ))}
          </Select>
        </Field>
      ) : null}
      <Field label="Name" htmlFor="schedule-name" error={fieldErrors.name}>
        <Input id="schedule-name" value={draft.name} onChange={(e) => set("name", e.target.value)} required maxLength={120} />
      </Field>
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <Field label="Cron" htmlFor="schedule-cron" error={fieldErrors.cron ?? liveProblem("cron")}>
          <Input
            id="schedule-cron"
            className="font-mono"
            value={draft.cron}
            onChange={(e) => set("cron", e.target.value)}
            placeholder="0 9 * * 1"
          />
        </Field>
        <Field label="Time zone" htmlFor="schedule-tz" error={fieldErrors.timezone ?? liveProblem("timezone")}>
          <Input
            id="schedule-tz"
            value={draft.timezone}
            onChange={(e) => set("timezone", e.target.value)}
            placeholder="UTC"
            maxLength={64}
            autoCapitalize="none"
          />
        </Field>
      </div>
      {p?.valid ? (
        <div className="rounded-md bg-muted px-3 py-2 text-xs" data-testid="cron-preview">
          <p className="font-medium text-fg">{p.description ? `Runs ${p.description} (${p.timezone})` : "Runs at:"}</p>
          <p className="mt-0.5 text-fg-muted">
            Next:{" "}
            {p.next
              .map((at) => {
                const { zoned, local } = scheduleTimeText(at, p.timezone);
                return local ? `${zoned} (${local} your time)` : zoned;
              })
              .join(" · ")}
          </p>
        </div>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Target" htmlFor="schedule-target" hint={TARGETS.find((t) => t.kind === draft.targetKind)?.hint}>
          <Select id="schedule-target" value={draft.targetKind} onChange={(e) => set("targetKind", e.target.value as TargetKind)}>
            {TARGETS.map((t) => (
              <option key={t.kind} value={t.kind}>
                {t.label}
              </option>
            ))}
          </Select>
        </Field>
        {draft.targetKind === "agent" ? (
          <Field label="Target agent" htmlFor="schedule-agent" error={fieldErrors.agentId}>
            <Select id="schedule-agent" value={draft.agentId} onChange={(e) => set("agentId", e.target.value)} required>
              <option value="">Choose an agent</option>
              {agents.data?.agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agentLabel(agent)} ({agent.role})
                </option>
              ))}
            </Select>
          </Field>
        ) : draft.targetKind === "role" ? (
          <Field label="Role" htmlFor="schedule-role" error={fieldErrors.targetValue}>
            <Select id="schedule-role" value={draft.targetValue} onChange={(e) => set("targetValue", e.target.value)} required>
              <option value="">Choose a role</option>
              <option value="worker">worker</option>
              <option value="lead">lead</option>
            </Select>
          </Field>
        ) : draft.targetKind === "tag" ? (
          <Field label="Tag" htmlFor="schedule-tag" hint="A capability tag of the agents" error={fieldErrors.targetValue}>
            <Input
              id="schedule-tag"
              value={draft.targetValue}
              onChange={(e) => set("targetValue", e.target.value)}
              placeholder="frontend"
              required
            />
          </Field>
        ) : null}
      </div>
      <Field label="Task title" htmlFor="schedule-title" error={fieldErrors.taskTitle}>
        <Input id="schedule-title" value={draft.taskTitle} onChange={(e) => set("taskTitle", e.target.value)} required maxLength={200} />
      </Field>
      <Field label="Task description" htmlFor="schedule-description" error={fieldErrors.taskDescription}>
        <Textarea
          id="schedule-description"
          rows={6}
          value={draft.taskDescription}
          onChange={(e) => set("taskDescription", e.target.value)}
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Type" htmlFor="schedule-type" error={fieldErrors.taskType}>
          <Input
            id="schedule-type"
            value={draft.taskType}
            onChange={(e) => set("taskType", e.target.value)}
            maxLength={40}
            autoCapitalize="none"
          />
        </Field>
        <Field label="Tags" htmlFor="schedule-tags" hint="Comma-separated" error={fieldErrors.taskTags}>
          <Input id="schedule-tags" value={draft.taskTags} onChange={(e) => set("taskTags", e.target.value)} />
        </Field>
        <Field label="Priority" htmlFor="schedule-priority" error={fieldErrors.taskPriority}>
          <Input
            id="schedule-priority"
            type="number"
            inputMode="numeric"
            min={-100}
            max={100}
            step={1}
            value={draft.taskPriority}
            onChange={(e) => set("taskPriority", Number(e.target.value))}
          />
        </Field>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled", e.target.checked)} data-testid="schedule-enabled" />
        Enabled (fires on its cron from now on)
      </label>
      <FormActions
        onCancel={onDone}
        submitLabel={schedule ? "Save" : "Create schedule"}
        busy={busy}
        disabled={p ? !p.valid : false}
        testId="schedule-save"
      />
    </form>
  );
}
