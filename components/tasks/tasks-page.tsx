"use client";

// The task list: live status (refreshed every 2 s), filters by status, agent, tag
// and text, paging, and the create dialog.
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api } from "@/lib/api-client";
import type { TaskDto, TaskStatus } from "@/lib/contracts/tasks";
import { AgentFilterOptions } from "../agent-filter-options";
import { pageQuery } from "../page-query";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, PageHeader } from "../ui/card";
import { Input, Select } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { useTypedBeforeHydration } from "../use-typed-before-hydration";
import { useUrlView } from "../use-url-view";
import { CreateTaskDialog, useAgentsForTasks } from "./create-task-dialog";
import { STATUS_FILTERS, type TaskFilters, tagFilterProblem, taskFiltersFromQuery, taskFiltersQuery } from "./task-filters";
import { TaskStatusBadge } from "./task-status-badge";

type Page = { tasks: TaskDto[]; nextCursor: string | null };

/** A URL's filters as the page writes them. */
const urlFilters = (url: URLSearchParams) => taskFiltersQuery(taskFiltersFromQuery(pageQuery(url)));

export function TasksPage({ initial }: { initial: TaskFilters }) {
  const can = useCan();
  const agents = useAgentsForTasks();
  const [creating, setCreating] = useState(false);
  // The filters live in the URL: the server page hands over the ones it was asked
  // for, so the first render already shows them (nothing resets a box after
  // hydration, which would drop what was typed before), then the URL follows them,
  // and a link or Back to other filters sets them (components/use-url-view.ts).
  const [status, setStatus] = useState(initial.status);
  const [agentId, setAgentId] = useState(initial.agentId);
  const [tag, setTag] = useState(initial.tag);
  const [q, setQ] = useState(initial.q);
  const statusBox = useTypedBeforeHydration<HTMLSelectElement>(status, setStatus);
  // (Not the agent picker: until its options arrive it offers only "All agents" and a
  // link's agent.)
  const tagBox = useTypedBeforeHydration<HTMLInputElement>(tag, setTag);
  const qBox = useTypedBeforeHydration<HTMLInputElement>(q, setQ);

  const filters = taskFiltersQuery({ status, agentId, tag, q });
  // A tag filter that cannot be a tag is not sent (the list stays as the other filters
  // have it); the box says why instead.
  const tagProblem = tagFilterProblem(tag);
  useUrlView(filters, taskFiltersQuery(initial), urlFilters, (url) => {
    const asked = taskFiltersFromQuery(pageQuery(url));
    setStatus(asked.status);
    setAgentId(asked.agentId);
    setTag(asked.tag);
    setQ(asked.q);
  });

  const tasks = useInfiniteQuery({
    queryKey: ["tasks", filters],
    queryFn: ({ pageParam }) => {
      const page = new URLSearchParams(filters);
      page.set("limit", "50");
      if (pageParam) page.set("cursor", pageParam);
      return api<Page>(`/api/v1/tasks?${page}`);
    },
    initialPageParam: "",
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: 2_000,
    placeholderData: keepPreviousData,
  });
  const rows = tasks.data?.pages.flatMap((page) => page.tasks) ?? [];
  const filtered = Boolean(filters);

  return (
    <div>
      <PageHeader
        title="Tasks"
        description="Work for the swarm: given to one agent, or left in the pool for any free worker. Status updates live."
        actions={
          can.write ? (
            <Button onClick={() => setCreating(true)} data-testid="new-task">
              <Plus className="size-4" aria-hidden /> New task
            </Button>
          ) : null
        }
      />
      {/* On a phone: the two pickers side by side, the tag and the search each a full line; from sm on, one row. */}
      <div className="mb-4 grid grid-cols-2 gap-2 sm:flex sm:flex-wrap sm:items-center" data-testid="task-filters">
        <Select
          aria-label="Status"
          className="sm:w-48"
          ref={statusBox}
          value={status}
          onChange={(event) => setStatus(event.target.value)}
          data-testid="filter-status"
        >
          {STATUS_FILTERS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </Select>
        <Select
          aria-label="Agent"
          className="sm:w-48"
          value={agentId}
          onChange={(event) => setAgentId(event.target.value)}
          data-testid="filter-agent"
        >
          <AgentFilterOptions agents={agents.data?.agents ?? []} picked={agentId} loading={agents.isPending} failed={agents.isError} />
        </Select>
        <Input
          aria-label="Tag"
          className="col-span-2 sm:w-36"
          placeholder="Tag"
          maxLength={80}
          ref={tagBox}
          value={tag}
          onChange={(event) => setTag(event.target.value)}
          aria-invalid={tagProblem ? true : undefined}
          aria-describedby={tagProblem ? "filter-tag-hint" : undefined}
          data-testid="filter-tag"
        />
        <Input
          aria-label="Search"
          className="col-span-2 sm:w-64"
          placeholder="Search title or description"
          ref={qBox}
          value={q}
          onChange={(event) => setQ(event.target.value)}
          data-testid="filter-q"
        />
        {filtered ? (
          <Button
            variant="ghost"
            size="sm"
            className="col-span-2 justify-self-start"
            onClick={() => {
              setStatus("");
              setAgentId("");
              setTag("");
              setQ("");
            }}
          >
            Clear filters
          </Button>
        ) : null}
        {tagProblem ? (
          <p id="filter-tag-hint" className="col-span-2 basis-full text-xs text-danger" role="status" data-testid="filter-tag-hint">
            {tagProblem}
          </p>
        ) : null}
      </div>
      <Card>
        {tasks.isPending ? (
          <Loading label="Loading tasks…" />
        ) : tasks.isError && rows.length === 0 ? (
          <ErrorState error={tasks.error} />
        ) : rows.length === 0 ? (
          filtered ? (
            <EmptyState title="No task matches these filters">Change or clear the filters above.</EmptyState>
          ) : (
            <EmptyState
              title="No tasks yet"
              action={can.write ? <Button onClick={() => setCreating(true)}>Create the first task</Button> : undefined}
            >
              Create a task for an agent, or put one in the pool; a worker polling for work picks it up.
            </EmptyState>
          )
        ) : (
          <div className="overflow-x-auto">
            <table className="stack-table w-full text-sm" data-testid="tasks-table">
              <thead>
                <tr className="border-b border-border text-left text-xs text-fg-muted">
                  <th className="px-4 py-2 font-medium">Task</th>
                  <th className="px-4 py-2 font-medium">Status</th>
                  <th className="px-4 py-2 font-medium">Agent</th>
                  <th className="px-4 py-2 font-medium">Priority</th>
                  <th className="px-4 py-2 font-medium">Attempts</th>
                  <th className="px-4 py-2 font-medium">Updated</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {rows.map((task) => (
                  <TaskRow key={task.id} task={task} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        {tasks.hasNextPage ? (
          <div className="border-t border-border p-3 text-center">
            <Button variant="secondary" size="sm" busy={tasks.isFetchingNextPage} onClick={() => tasks.fetchNextPage()}>
              Load more
            </Button>
          </div>
        ) : null}
      </Card>
      <CreateTaskDialog open={creating} onOpenChange={setCreating} />
    </div>
  );
}

function TaskRow({ task }: { task: TaskDto }) {
  return (
    <tr className="hover:bg-muted/50" data-testid="task-row" data-task-id={task.id}>
      <td className="max-w-md px-4 py-2.5">
        <Link href={`/tasks/${task.id}`} className="font-medium hover:underline" data-testid="task-link">
          {task.title}
        </Link>
        <div className="mt-0.5 flex flex-wrap items-center gap-1 text-xs text-fg-muted">
          {task.type !== "task" ? <span>{task.type}</span> : null}
          {task.tags.map((tag) => (
            <Badge key={tag} className="px-1.5 py-0">
              {tag}
            </Badge>
          ))}
          {task.status === "in_progress" && task.progress ? <span className="truncate italic">“{task.progress}”</span> : null}
        </div>
      </td>
      <td data-label="Status" className="px-4 py-2.5">
        <TaskStatusBadge status={task.status as TaskStatus} />
      </td>
      <td data-label="Agent" className="px-4 py-2.5">
        {task.agentId ? (
          <Link href={`/agents/${task.agentId}`} className="hover:underline">
            {task.agentName}
          </Link>
        ) : (
          <span className="text-fg-muted">{task.status === "offered" ? "awaiting acceptance" : "pool"}</span>
        )}
      </td>
      {/* On a phone Priority and Attempts, two short numbers, share a line (app/globals.css, data-pair). */}
      <td data-label="Priority" data-pair className="px-4 py-2.5 tabular-nums">
        {task.priority}
      </td>
      <td data-label="Attempts" data-pair className="px-4 py-2.5 tabular-nums">
        {task.attempts}
      </td>
      <td data-label="Updated" className="px-4 py-2.5 text-fg-muted">
        <RelativeTime iso={task.updatedAt} />
      </td>
    </tr>
  );
}
