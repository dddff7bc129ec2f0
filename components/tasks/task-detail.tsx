"use client";

// One task: what it is, where it stands (live while it is not finished), its
// output and failure, the event timeline, and the operator actions with
// confirmations (cancel, retry, reassign, return to the pool / accept).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import Link from "next/link";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { agentLabel } from "@/lib/agents/agent-label";
import { ApiClientError, api, describeError } from "@/lib/api-client";
import { FINISHED_STATUSES, type PatchTaskBody, type TaskDto, type TaskEventDto, type TaskStatus } from "@/lib/contracts/tasks";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { cn } from "../ui/cn";
import { ConfirmDialog } from "../ui/dialog";
import { Field, Select } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { useAgentsForTasks } from "./create-task-dialog";
import { TaskIdentityGrant } from "./identity-grant";
import { Markdown } from "./markdown";
import { TaskStatusBadge } from "./task-status-badge";
import { TaskTimeline } from "./task-timeline";

type Detail = { task: TaskDto; events: TaskEventDto[] };

function isFinished(status: string) {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

export function TaskDetail({ id }: { id: string }) {
  const detail = useQuery({
    queryKey: ["tasks", "detail", id],
    queryFn: () => api<Detail>(`/api/v1/tasks/${id}`),
    refetchInterval: (query) => (query.state.error ? false : query.state.data && isFinished(query.state.data.task.status) ? 10_000 : 1_500),
    retry: (failures, error) => !(error instanceof ApiClientError && error.status === 404) && failures < 1,
  });

  if (detail.isPending) return <Loading label="Loading the task…" />;
  if (detail.isError) {
    const back = (
      <Link href="/tasks" className="inline-flex items-center gap-1 text-sm text-accent hover:underline" data-testid="back-to-tasks">
        <ArrowLeft className="size-3.5" aria-hidden /> All tasks
      </Link>
    );
    return (
      <Card data-testid="task-error">
        {detail.error instanceof ApiClientError && detail.error.status === 404 ? (
          <EmptyState title="No such task" action={back}>
            There is no task {id}: the link may be wrong, or it was never created here.
          </EmptyState>
        ) : (
          <>
            <ErrorState error={detail.error} />
            <div className="px-4 pb-4">{back}</div>
          </>
        )}
      </Card>
    );
  }
  const { task, events } = detail.data;
  const parentId = task.parentTaskId;

  return (
    <div className="space-y-5">
      <div>
        <Link href="/tasks" className="inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
          <ArrowLeft className="size-4" aria-hidden /> Tasks
        </Link>
        <div className="mt-2 flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <h1 className="text-xl font-semibold tracking-tight" data-testid="task-title">
              {task.title}
            </h1>
            <div className="mt-1.5 flex flex-wrap items-center gap-2 text-sm text-fg-muted">
              <TaskStatusBadge status={task.status as TaskStatus} />
              <span>{task.type}</span>
              {task.tags.map((tag) => (
                <Badge key={tag}>{tag}</Badge>
              ))}
            </div>
          </div>
          <TaskActions task={task} />
        </div>
      </div>

      <Card>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 px-4 py-3 text-sm md:grid-cols-4">
          <Meta label="Agent">
            {task.agentId ? (
              <Link href={`/agents/${task.agentId}`} className="hover:underline" data-testid="task-agent">
                {task.agentName}
              </Link>
            ) : (
              <span className="text-fg-muted" data-testid="task-agent">
                {task.status === "offered" ? "awaiting an operator" : "the pool"}
              </span>
            )}
          </Meta>
          <Meta label="Priority">{task.priority}</Meta>
          <Meta label="Attempts">
            <span data-testid="task-attempts">{task.maxAttempts ? `${task.attempts} of ${task.maxAttempts}` : task.attempts}</span>
            {task.retryAt && Date.parse(task.retryAt) > Date.now() && (task.status === "pending" || task.status === "unassigned") ? (
              <span className="block text-xs text-fg-muted">
                given back; its last agent waits until <RelativeTime iso={task.retryAt} />
              </span>
            ) : null}
          </Meta>
          <Meta label="Time limit">
            <span data-testid="task-time-limit">
              {task.timeLimitMinutes ? `${task.timeLimitMinutes} min` : <span className="text-fg-muted">agent's default</span>}
            </span>
          </Meta>
          <Meta label="Created">
            <RelativeTime iso={task.createdAt} />
          </Meta>
          <Meta label="Claimed">
            <RelativeTime iso={task.claimedAt} never="not yet" />
          </Meta>
          <Meta label="Last heartbeat">
            <RelativeTime iso={task.heartbeatAt} never="—" />
          </Meta>
          <Meta label="Last activity">
            {task.lastActivityAt ? (
              <span data-testid="task-last-activity">
                <RelativeTime iso={task.lastActivityAt} />
                <span className="block truncate text-xs text-fg-muted" title={task.lastActivity ?? ""}>
                  {task.lastActivity}
                </span>
              </span>
            ) : (
              <span className="text-fg-muted">—</span>
            )}
          </Meta>
          <Meta label="Finished">
            <RelativeTime iso={task.finishedAt} never="—" />
          </Meta>
          <Meta label="Parent task">
            {parentId ? (
              <Link href={`/tasks/${parentId}`} className="text-accent hover:underline">
                open parent
              </Link>
            ) : (
              <span className="text-fg-muted">none</span>
            )}
          </Meta>
        </dl>
      </Card>

      {task.status === "in_progress" && task.progress ? (
        <div className="rounded-md border border-accent/30 bg-accent/5 px-4 py-3 text-sm" data-testid="task-progress">
          <span className="font-medium text-accent">Progress: </span>
          {task.progress}
        </div>
      ) : null}

      {task.failureReason ? (
        <Card className="border-danger/40">
          <CardHeader title={<span className="text-danger">Failure reason</span>} />
          <pre
            className="max-h-96 overflow-auto whitespace-pre-wrap px-4 py-3 font-mono text-xs text-danger [overflow-wrap:anywhere]"
            data-testid="task-failure"
          >
            {task.failureReason}
          </pre>
        </Card>
      ) : null}

      <TaskIdentityGrant task={task} />

      {task.output ? (
        <Card>
          <CardHeader title="Output" description={task.summary ?? "What the agent reported when it finished."} />
          <div className="max-h-[36rem] overflow-auto px-4 py-3">
            <Markdown testId="task-output">{task.output}</Markdown>
          </div>
        </Card>
      ) : null}

      <EarlierRuns events={events} />

      <div className="grid items-start gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <Card className="min-w-0">
          <CardHeader title="Description" />
          {task.description.trim() ? (
            <LongText>
              <Markdown>{task.description}</Markdown>
            </LongText>
          ) : (
            <p className="px-4 py-3 text-sm text-fg-muted">No description.</p>
          )}
        </Card>
        <Card className="min-w-0">
          <CardHeader title="Timeline" description="Every status change and progress note, oldest first." />
          <TaskTimeline events={events} />
        </Card>
      </div>
    </div>
  );
}

type RunRecord = {
  status: string;
  agentName: string | null;
  attempts: number;
  finishedAt: string | null;
  output: string | null;
  summary: string | null;
  failureReason: string | null;
};

/** The runs a retry started over from (TaskEvent "attempt"), newest first; each opens to its output and failure. */
function EarlierRuns({ events }: { events: TaskEventDto[] }) {
  const runs = events.filter((event) => event.type === "attempt").reverse();
  if (!runs.length) return null;
  return (
    <Card data-testid="earlier-runs">
      <CardHeader title="Earlier runs" description="Each retry starts over; what the runs before it did stays here." />
      <ol className="divide-y divide-border">
        {runs.map((event, i) => {
          const run = event.data as RunRecord;
          return (
            <li key={event.id} data-testid="earlier-run">
              <details open={i === 0} className="group px-4 py-3">
                <summary className="flex cursor-pointer flex-wrap items-center gap-2 text-sm">
                  <span className="font-medium">Run {runs.length - i}</span>
                  <TaskStatusBadge status={run.status as TaskStatus} testId="earlier-run-status" />
                  <span className="text-xs text-fg-muted">
                    {run.agentName ?? "pool"} · {run.attempts} attempt{run.attempts === 1 ? "" : "s"}
                    {run.finishedAt ? (
                      <>
                        {" "}
                        · ended <RelativeTime iso={run.finishedAt} />
                      </>
                    ) : null}
                  </span>
                </summary>
                <div className="mt-2 space-y-2">
                  {run.failureReason ? (
                    <pre
                      className="max-h-60 overflow-auto whitespace-pre-wrap font-mono text-xs text-danger"
                      data-testid="earlier-run-failure"
                    >
                      {run.failureReason}
                    </pre>
                  ) : null}
                  {run.output ? (
                    <div className="max-h-96 overflow-auto rounded-md border border-border px-3 py-2" data-testid="earlier-run-output">
                      <Markdown>{run.output}</Markdown>
                    </div>
                  ) : (
                    <p className="text-xs text-fg-muted">No output.</p>
                  )}
                </div>
              </details>
            </li>
          );
        })}
      </ol>
    </Card>
  );
}

/** A text shown up to a screenful, with "Show more" / "Show less" when it is longer. */
function LongText({ children }: { children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [long, setLong] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setLong(element.scrollHeight > element.clientHeight + 1 || element.scrollHeight > 384);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <div className="min-w-0">
      <div
        ref={box}
        className={cn(
          "relative px-4 py-3 [overflow-wrap:anywhere]",
          !open && "max-h-96 overflow-hidden",
          !open &&
            long &&
            "after:pointer-events-none after:absolute after:inset-x-0 after:bottom-0 after:h-12 after:bg-gradient-to-t after:from-panel",
        )}
        data-testid="task-description"
      >
        {children}
      </div>
      {long ? (
        <div className="border-t border-border px-4 py-2">
          <button
            type="button"
            className="text-sm text-accent hover:underline"
            aria-expanded={open}
            onClick={() => setOpen((value) => !value)}
            data-testid="task-description-toggle"
          >
            {open ? "Show less" : "Show more"}
          </button>
        </div>
      ) : null}
    </div>
  );
}

function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="mt-0.5 break-words">{children}</dd>
    </div>
  );
}

type Pending = {
  body: PatchTaskBody;
  title: string;
  description: string;
  confirm: string;
  /** The dismiss button (default "Cancel"; never that when the action itself cancels). */
  keep?: string;
  destructive?: boolean;
} | null;

function TaskActions({ task }: { task: TaskDto }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const agents = useAgentsForTasks();
  const [pending, setPending] = useState<Pending>(null);
  const [reassignTo, setReassignTo] = useState("");
  const [reassigning, setReassigning] = useState(false);

  const act = useMutation({
    mutationFn: (body: PatchTaskBody) => api<{ task: TaskDto }>(`/api/v1/tasks/${task.id}`, { method: "PATCH", body }),
    onSuccess: ({ task: updated }, body) => {
      const done: Record<PatchTaskBody["action"], string> = {
        cancel: "Task cancelled",
        retry: updated.agentName ? `Task queued again for ${updated.agentName}` : "Task back in the pool",
        reassign: `Task assigned to ${updated.agentName}`,
        unassign: "Task is in the pool",
        grant: "Identity rights saved",
      };
      toast.success(done[body.action]);
      queryClient.invalidateQueries({ queryKey: ["tasks"] });
      setPending(null);
      setReassigning(false);
    },
    onError: (error) => {
      toast.error(describeError(error));
      queryClient.invalidateQueries({ queryKey: ["tasks"] });
      setPending(null);
    },
  });

  if (!can.write) return null;
  const finished = isFinished(task.status);
  const running = task.status === "in_progress";
  const movable = !finished && !running;
  const otherAgents = (agents.data?.agents ?? []).filter((agent) => !(task.status === "pending" && agent.id === task.agentId));

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="task-actions">
      {task.status === "failed" || task.status === "cancelled" ? (
        <Button
          data-testid="task-retry"
          onClick={() =>
            setPending({
              body: { action: "retry" },
              title: "Retry this task?",
              description:
                "It goes back to the agent it was created for (or to the pool) and starts over: attempts, output and failure begin again. This run's output and failure are kept under Earlier runs.",
              confirm: "Retry",
            })
          }
        >
          Retry
        </Button>
      ) : null}
      {movable ? (
        <>
          <Button variant="secondary" data-testid="task-reassign" onClick={() => setReassigning(true)}>
            {task.agentId ? "Reassign" : "Assign to an agent"}
          </Button>
          {task.status !== "unassigned" ? (
            <Button
              variant="secondary"
              data-testid="task-unassign"
              onClick={() =>
                setPending({
                  body: { action: "unassign" },
                  title: task.status === "offered" ? "Accept this proposal into the pool?" : "Return this task to the pool?",
                  description: "Any free worker may then claim it.",
                  confirm: task.status === "offered" ? "Accept into pool" : "Return to pool",
                })
              }
            >
              {task.status === "offered" ? "Accept into pool" : "Return to pool"}
            </Button>
          ) : null}
        </>
      ) : null}
      {!finished ? (
        <Button
          variant="danger"
          data-testid="task-cancel"
          onClick={() =>
            setPending({
              body: { action: "cancel" },
              title: task.status === "offered" ? "Reject this proposal?" : "Cancel this task?",
              description: running
                ? `${task.agentName ?? "The agent"} is working on it now: its worker hears about the cancellation at its next heartbeat and stops the agent.`
                : "No worker will pick it up. You can retry it later.",
              confirm: task.status === "offered" ? "Reject" : "Cancel task",
              keep: task.status === "offered" ? "Keep proposal" : "Keep task",
              destructive: true,
            })
          }
        >
          {task.status === "offered" ? "Reject" : "Cancel"}
        </Button>
      ) : null}

      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => (open ? null : setPending(null))}
        title={pending?.title ?? ""}
        description={pending?.description ?? ""}
        confirmLabel={pending?.confirm ?? "Confirm"}
        cancelLabel={pending?.keep}
        destructive={pending?.destructive}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending.body)}
      />
      <ConfirmDialog
        open={reassigning}
        onOpenChange={setReassigning}
        title={task.status === "offered" ? "Assign this proposal" : task.agentId ? "Reassign this task" : "Assign this task"}
        description="It waits for the chosen agent's worker to claim it."
        confirmLabel="Assign"
        busy={act.isPending}
        onConfirm={() => (reassignTo ? act.mutate({ action: "reassign", agentId: reassignTo }) : toast.error("Choose an agent first"))}
      >
        <div className="mt-4">
          <Field label="Agent" htmlFor="reassign-agent">
            <Select
              id="reassign-agent"
              value={reassignTo}
              onChange={(event) => setReassignTo(event.target.value)}
              data-testid="reassign-agent"
            >
              <option value="">Choose an agent…</option>
              {otherAgents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agentLabel(agent)}
                </option>
              ))}
            </Select>
          </Field>
        </div>
      </ConfirmDialog>
    </div>
  );
}
