"use client";

// The Schedules page: every schedule with its timing, target, last and next run;
// create and edit in a dialog, enable or disable, run now (./schedule-actions.ts, shared
// with a schedule's own page), delete.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { CalendarClock, Pencil, Plus, Trash2 } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { useCan } from "@/components/session-user";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader, PageHeader } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";
import type { ScheduleDto } from "@/lib/contracts/schedules";
import { useFocusReturn } from "../use-focus-return";
import { DeleteScheduleDialog } from "./delete-schedule-dialog";
import { LeadTemplatesCard } from "./lead-templates-card";
import { RunStatusBadge } from "./run-status";
import { useScheduleActions } from "./schedule-actions";
import { ScheduleForm } from "./schedule-form";
import { ScheduleTime } from "./schedule-time";
import { ToggleRunButtons } from "./toggle-run-buttons";

/** A moment of the schedule in its own time zone (the viewer's beside it when that differs), or `empty`. */
function when(iso: string | null, timeZone: string, empty: string) {
  if (!iso) return <span className="text-fg-muted">{empty}</span>;
  return <ScheduleTime iso={iso} timeZone={timeZone} />;
}

export function SchedulesPage() {
  const can = useCan();
  const queryClient = useQueryClient();
  const schedules = useQuery({
    queryKey: ["schedules"],
    queryFn: () => api<{ schedules: ScheduleDto[] }>("/api/v1/schedules"),
    refetchInterval: 15_000,
  });
  const [editing, setEditing] = useState<ScheduleDto | "new" | null>(null);
  const [deleting, setDeleting] = useState<ScheduleDto | null>(null);
  useFocusReturn(editing !== null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["schedules"] });
  const actions = useScheduleActions();

  const list = schedules.data?.schedules ?? [];
  return (
    <div>
      <PageHeader
        title="Schedules"
        description="Cron schedules that create tasks from a template: retrospectives, digests and metric checks keep the learning loop turning."
        actions={
          can.write ? (
            <Button onClick={() => setEditing("new")} data-testid="new-schedule">
              <Plus className="size-4" /> New schedule
            </Button>
          ) : null
        }
      />
      {can.write ? <LeadTemplatesCard onInstalled={refresh} /> : null}
      <Card>
        <CardHeader
          title="All schedules"
          description="Times are in each schedule's own time zone, the one its cron is written in, with yours beside them where it differs."
        />
        {schedules.isPending ? (
          <Loading />
        ) : schedules.error ? (
          <ErrorState error={schedules.error} />
        ) : list.length === 0 ? (
          <EmptyState
            title="No schedules yet"
            action={can.write ? <Button onClick={() => setEditing("new")}>New schedule</Button> : undefined}
          >
            A schedule creates a task on a cron timetable, for an agent or for the pool.
          </EmptyState>
        ) : (
          <ul className="divide-y divide-border" data-testid="schedule-list">
            {list.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center gap-4 px-4 py-3" data-testid="schedule-row">
                <CalendarClock className={`size-5 shrink-0 ${s.enabled ? "text-accent" : "text-fg-muted"}`} aria-hidden />
                {/* At least 16rem wide: on a phone the run times wrap onto a line of their own rather than squeeze the name into a narrow column. */}
                <div className="min-w-0 flex-1 basis-64" data-testid="schedule-summary">
                  <div className="flex flex-wrap items-center gap-2">
                    <Link href={`/schedules/${s.id}`} className="font-medium hover:underline" data-testid="schedule-link">
                      {s.name}
                    </Link>
                    {s.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>}
                    {s.templateKey ? <Badge tone="accent">template</Badge> : null}
                  </div>
                  <p className="mt-0.5 text-xs text-fg-muted">
                    <code className="font-mono">{s.cron}</code>
                    {s.cronDescription ? ` · ${s.cronDescription}` : ""} · {s.timezone} · {s.targetDescription}
                  </p>
                </div>
                <div className="grid grid-cols-2 gap-x-6 text-xs max-sm:w-full">
                  <span className="text-fg-muted">Last run</span>
                  <span className="text-fg-muted">Next run</span>
                  <span data-testid="schedule-last-run" className="flex flex-wrap items-center gap-1">
                    {s.lastTaskId ? (
                      <Link href={`/tasks/${s.lastTaskId}`} className="text-accent hover:underline" title="The last run's task">
                        {when(s.lastRunAt, s.timezone, "never")}
                      </Link>
                    ) : (
                      when(s.lastRunAt, s.timezone, "never")
                    )}
                    {s.lastRunStatus && s.lastRunStatus !== "created" ? (
                      <Link href={`/schedules/${s.id}`} title="See the run history">
                        <RunStatusBadge status={s.lastRunStatus} />
                      </Link>
                    ) : null}
                  </span>
                  <span data-testid="schedule-next-run">{when(s.nextRunAt, s.timezone, s.enabled ? "computing…" : "disabled")}</span>
                </div>
                {can.write ? (
                  <div className="flex items-center gap-1">
                    <ToggleRunButtons schedule={s} actions={actions} runVariant="ghost" />
                    <Button size="sm" variant="ghost" title="Edit" aria-label={`Edit ${s.name}`} onClick={() => setEditing(s)}>
                      <Pencil className="size-4" />
                    </Button>
                    <Button size="sm" variant="ghost" title="Delete" aria-label={`Delete ${s.name}`} onClick={() => setDeleting(s)}>
                      <Trash2 className="size-4" />
                    </Button>
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Dialog
        open={editing !== null}
        onOpenChange={(open) => (open ? null : setEditing(null))}
        title={editing === "new" ? "New schedule" : `Edit ${editing?.name ?? ""}`}
        className="max-w-2xl!"
      >
        {editing !== null ? (
          <ScheduleForm
            key={editing === "new" ? "new" : editing.id}
            schedule={editing === "new" ? undefined : editing}
            onDone={() => {
              setEditing(null);
              void refresh();
            }}
          />
        ) : null}
      </Dialog>
      <DeleteScheduleDialog schedule={deleting} onDone={() => setDeleting(null)} />
    </div>
  );
}
