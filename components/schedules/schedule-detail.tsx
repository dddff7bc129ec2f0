"use client";

// One schedule's page: what it does and for whom, and its run history (newest
// first): when each run fired and for which slot, how (cron or run now), the
// tasks it created with their state and links, and the targets it skipped with
// the reason (still open from an earlier run, agent offline, minimum interval).
// Run now, Enable/Disable, Edit and Delete act on it here as on the Schedules list.
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, Pencil, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { RelativeTime } from "@/components/relative-time";
import { useCan } from "@/components/session-user";
import { TaskStatusBadge } from "@/components/tasks/task-status-badge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader, PageHeader } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";
import type { ScheduleDto, ScheduleRunDto } from "@/lib/contracts/schedules";
import type { TaskStatus } from "@/lib/contracts/tasks";
import { useFocusReturn } from "../use-focus-return";
import { DeleteScheduleDialog } from "./delete-schedule-dialog";
import { RunStatusBadge } from "./run-status";
import { useScheduleActions } from "./schedule-actions";
import { ScheduleForm } from "./schedule-form";
import { ScheduleTime } from "./schedule-time";
import { ToggleRunButtons } from "./toggle-run-buttons";

function Run({ run, timeZone }: { run: ScheduleRunDto; timeZone: string }) {
  return (
    <li className="space-y-2 px-4 py-3" data-testid="schedule-run-row">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <RunStatusBadge status={run.status} />
        <span className="font-medium">
          <ScheduleTime iso={run.firedAt} timeZone={timeZone} />
        </span>
        <span className="text-xs text-fg-muted">
          (<RelativeTime iso={run.firedAt} />) ·{" "}
          {run.trigger === "manual" ? (
            "run now"
          ) : (
            <>
              cron slot <ScheduleTime iso={run.scheduledFor} timeZone={timeZone} />
            </>
          )}
        </span>
      </div>
      {run.error ? <p className="text-sm text-danger">{run.error}</p> : null}
      {run.tasks.length > 0 ? (
        <ul className="space-y-1" aria-label="Tasks of this run">
          {run.tasks.map((task) => (
            <li key={task.id} className="flex flex-wrap items-center gap-2 text-sm" data-testid="schedule-run-task">
              <TaskStatusBadge status={task.status as TaskStatus} />
              <Link href={`/tasks/${task.id}`} className="font-medium text-accent hover:underline">
                {task.title}
              </Link>
              <span className="text-xs text-fg-muted">{task.agentName ? `for ${task.agentName}` : "pool task"}</span>
              {task.failureReason ? <span className="w-full truncate text-xs text-danger sm:w-auto">{task.failureReason}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {run.skips.length > 0 ? (
        <ul className="space-y-1" aria-label="Skipped">
          {run.skips.map((skip) => (
            <li
              key={`${skip.agentId}-${skip.reason}`}
              className="text-sm text-fg-muted [overflow-wrap:anywhere]"
              data-testid="schedule-run-skip"
            >
              <Badge>skipped</Badge> {skip.agentName ? <span className="font-medium text-fg">{skip.agentName}: </span> : null}
              {skip.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function ScheduleDetail({ id }: { id: string }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const actions = useScheduleActions();
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  useFocusReturn(editing);
  const schedule = useQuery({
    queryKey: ["schedule", id],
    queryFn: () => api<{ schedule: ScheduleDto }>(`/api/v1/schedules/${id}`),
    refetchInterval: 15_000,
  });
  const runs = useInfiniteQuery({
    queryKey: ["schedule-runs", id],
    queryFn: ({ pageParam }) =>
      api<{ runs: ScheduleRunDto[]; nextCursor: string | null }>(
        `/api/v1/schedules/${id}/runs?limit=20${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: 15_000,
  });
  if (schedule.isPending) return <Loading />;
  if (schedule.error) return <ErrorState error={schedule.error} />;
  const s = schedule.data.schedule;
  const list = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  return (
    <div>
      <Link href="/schedules" className="mb-3 inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
        <ArrowLeft className="size-4" /> Schedules
      </Link>
      <PageHeader
        title={s.name}
        description={
          <>
            <code className="font-mono">{s.cron}</code>
            {s.cronDescription ? ` · ${s.cronDescription}` : ""} · {s.timezone} · {s.targetDescription} · task “{s.taskTitle}”
          </>
        }
        actions={
          <div className="flex flex-wrap items-center gap-2">
            {s.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>}
            {can.write ? (
              <>
                <ToggleRunButtons schedule={s} actions={actions} runVariant="secondary" />
                <Button size="sm" variant="secondary" onClick={() => setEditing(true)} data-testid="schedule-edit">
                  <Pencil className="size-4" aria-hidden /> Edit
                </Button>
                <Button
                  size="sm"
                  variant="secondary"
                  className="text-danger"
                  onClick={() => setDeleting(true)}
                  data-testid="schedule-delete"
                >
                  <Trash2 className="size-4" aria-hidden /> Delete
                </Button>
              </>
            ) : null}
          </div>
        }
      />
      <DeleteScheduleDialog
        schedule={deleting ? s : null}
        onDone={() => setDeleting(false)}
        onDeleted={() => router.replace("/schedules")}
      />
      <Dialog open={editing} onOpenChange={setEditing} title={`Edit ${s.name}`} className="max-w-2xl!">
        {editing ? (
          <ScheduleForm
            schedule={s}
            onDone={() => {
              setEditing(false);
              void queryClient.invalidateQueries({ queryKey: ["schedule", id] });
              void queryClient.invalidateQueries({ queryKey: ["schedules"] });
            }}
          />
        ) : null}
      </Dialog>
      <Card>
        <CardHeader
          title="Runs"
          description={
            s.nextRunAt ? (
              <span data-testid="schedule-detail-next-run">
                Next run <ScheduleTime iso={s.nextRunAt} timeZone={s.timezone} />
              </span>
            ) : (
              "No next run while the schedule is disabled."
            )
          }
        />
        {runs.isPending ? (
          <Loading />
        ) : runs.error ? (
          <ErrorState error={runs.error} />
        ) : list.length === 0 ? (
          <EmptyState title="No runs yet">Each firing, on its cron or with “Run now”, is listed here with the tasks it created.</EmptyState>
        ) : (
          <ul className="divide-y divide-border" data-testid="schedule-runs">
            {list.map((run) => (
              <Run key={run.id} run={run} timeZone={s.timezone} />
            ))}
          </ul>
        )}
        {runs.hasNextPage ? (
          <div className="border-t border-border px-4 py-3">
            <Button variant="secondary" size="sm" busy={runs.isFetchingNextPage} onClick={() => runs.fetchNextPage()}>
              Older runs
            </Button>
          </div>
        ) : null}
      </Card>
    </div>
  );
}
