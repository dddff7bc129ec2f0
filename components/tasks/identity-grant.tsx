"use client";

// Identity rights on a task: the operator's explicit request that lets the task's
// agent change these files directly while it runs this task (lib/identity/rules.ts).
// Used by the New task form and by the task page (shown, and editable until the
// task is finished; every change is on the timeline and in the audit).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ShieldCheck } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import { IDENTITY_FILE_NAMES } from "@/lib/contracts/identity";
import { GRANTABLE_KINDS, type TaskDto } from "@/lib/contracts/tasks";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";

type Grantable = (typeof GRANTABLE_KINDS)[number];

const label = (kind: string) => (kind === "SETUP_SCRIPT" ? "setup script" : (IDENTITY_FILE_NAMES as Record<string, string>)[kind]);

export function GrantCheckboxes({
  value,
  onChange,
  name,
  disabled,
}: {
  value: readonly string[];
  onChange: (next: Grantable[]) => void;
  name: string;
  disabled?: boolean;
}) {
  return (
    <div className="flex flex-wrap gap-x-4 gap-y-2" data-testid={`${name}-grant`}>
      {GRANTABLE_KINDS.map((kind) => (
        <label key={kind} className="inline-flex items-center gap-1.5 text-sm">
          <input
            type="checkbox"
            name={name}
            value={kind}
            disabled={disabled}
            checked={value.includes(kind)}
            onChange={(event) => onChange(GRANTABLE_KINDS.filter((k) => (k === kind ? event.target.checked : value.includes(k))))}
            className="size-4 accent-[var(--color-accent,currentColor)]"
          />
          <span className="font-mono text-xs">{label(kind)}</span>
        </label>
      ))}
    </div>
  );
}

export function TaskIdentityGrant({ task }: { task: TaskDto }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Grantable[] | null>(null);
  const finished = ["completed", "failed", "cancelled"].includes(task.status);
  const save = useMutation({
    mutationFn: (identityGrant: Grantable[]) =>
      api<{ task: TaskDto }>(`/api/v1/tasks/${task.id}`, { method: "PATCH", body: { action: "grant", identityGrant } }),
    onSuccess: () => {
      toast.success("Identity rights saved");
      setEditing(null);
      queryClient.invalidateQueries({ queryKey: ["tasks"] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const editable = can.write && !finished;

  return (
    <Card data-testid="task-identity-grant">
      <CardHeader
        title="Identity rights"
        description="An explicit request: files the agent may change directly during this task, on any security profile. Without a right, its changes follow its profile."
        actions={
          editable && editing === null ? (
            <Button variant="secondary" size="sm" data-testid="grant-edit" onClick={() => setEditing(task.identityGrant as Grantable[])}>
              Change
            </Button>
          ) : null
        }
      />
      <div className="space-y-3 px-4 py-3">
        {editing !== null ? (
          <>
            <GrantCheckboxes name="task" value={editing} onChange={setEditing} disabled={save.isPending} />
            <div className="flex gap-2">
              <Button size="sm" data-testid="grant-save" disabled={save.isPending} onClick={() => save.mutate(editing)}>
                Save rights
              </Button>
              <Button size="sm" variant="secondary" onClick={() => setEditing(null)} disabled={save.isPending}>
                Cancel
              </Button>
            </div>
          </>
        ) : task.identityGrant.length > 0 ? (
          <div className="flex flex-wrap items-center gap-2" data-testid="grant-list">
            <ShieldCheck className="size-4 text-accent" aria-hidden />
            {task.identityGrant.map((kind) => (
              <Badge key={kind} tone="accent">
                {label(kind)}
              </Badge>
            ))}
          </div>
        ) : (
          <p className="text-sm text-fg-muted" data-testid="grant-none">
            None: every identity change of this task is agent-proposed.
          </p>
        )}
      </div>
    </Card>
  );
}
