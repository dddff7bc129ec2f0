"use client";

// The home page: what needs the operator now (proposals and offered tasks waiting,
// failures and alerts since their last visit, agents offline or with a failing
// setup), then how the swarm is trending, with links to where each is handled.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useEffect, useState } from "react";
import { Line, LineChart, ResponsiveContainer, Tooltip } from "recharts";
import type { z } from "zod";
import { api } from "@/lib/api-client";
import type { listAgentsResponseSchema } from "@/lib/contracts/agents";
import type { AlertDto } from "@/lib/contracts/metrics";
import type { listTasksResponseSchema } from "@/lib/contracts/tasks";
import { AgentStatusBadge } from "./agent-status-badge";
import { AlertBanner } from "./metrics/alert-banner";
import { duration } from "./metrics/chart-kit";
import { formatRelative } from "./relative-time";
import { Card, CardHeader, PageHeader } from "./ui/card";
import { cn } from "./ui/cn";
import { EmptyState, ErrorState, Loading } from "./ui/states";

type Tasks = z.infer<typeof listTasksResponseSchema>;
type DayPoint = { day: string; completed: number; failed: number; failureRate: number | null; medianMs: number | null };

/** localStorage: when this browser last opened the home page. */
export const LAST_LOOK_KEY = "swarmdeck:last-look";
const DAY_MS = 24 * 60 * 60 * 1000;
const TREND_DAYS = 14;

/** The previous visit (a day ago on the first one); this visit becomes the next one's "last look". */
function useLastLook(): number | null {
  const [since, setSince] = useState<number | null>(null);
  useEffect(() => {
    const stored = Number(window.localStorage.getItem(LAST_LOOK_KEY));
    setSince(Number.isFinite(stored) && stored > 0 ? stored : Date.now() - DAY_MS);
    window.localStorage.setItem(LAST_LOOK_KEY, String(Date.now()));
  }, []);
  return since;
}

function Attention({
  testId,
  href,
  count,
  label,
  detail,
  tone,
  failed = false,
}: {
  testId: string;
  href: string;
  count: number | string | undefined;
  label: string;
  detail?: ReactNode;
  tone: "warn" | "danger" | "neutral";
  /** Its query failed: no number is known (the section shows the error). */
  failed?: boolean;
}) {
  const zero = failed || count === 0 || count === "0";
  return (
    <Link
      href={href}
      data-testid={testId}
      className={cn(
        "block rounded-lg border bg-panel px-4 py-3 hover:bg-muted",
        zero ? "border-border" : tone === "danger" ? "border-danger/40" : tone === "warn" ? "border-warn/40" : "border-border",
      )}
    >
      <p className="text-xs text-fg-muted">{label}</p>
      <p
        className={cn(
          "mt-1 text-2xl font-semibold tabular-nums",
          !zero && tone === "danger" && "text-danger",
          !zero && tone === "warn" && "text-warn",
        )}
        data-testid={`${testId}-count`}
      >
        {failed ? "–" : (count ?? "…")}
      </p>
      {failed ? (
        <div className="mt-1 truncate text-xs text-danger">could not be loaded</div>
      ) : detail ? (
        <div
          className="mt-1 line-clamp-2 break-words text-xs text-fg-muted"
          data-testid={`${testId}-detail`}
          title={typeof detail === "string" ? detail : undefined}
        >
          {detail}
        </div>
      ) : null}
    </Link>
  );
}

function Trend({
  testId,
  label,
  value,
  points,
  field,
  color,
}: {
  testId: string;
  label: string;
  value: string;
  points: DayPoint[];
  field: keyof DayPoint;
  color: string;
}) {
  return (
    <Link href="/metrics" className="block min-w-0 rounded-lg border border-border bg-panel px-4 py-3 hover:bg-muted" data-testid={testId}>
      <p className="text-xs text-fg-muted">{label}</p>
      <p className="mt-1 text-lg font-semibold tabular-nums" data-testid={`${testId}-value`}>
        {value}
      </p>
      <div className="mt-1 h-9 w-full" aria-hidden>
        <ResponsiveContainer width="100%" height="100%" minWidth={0}>
          <LineChart data={points} margin={{ top: 2, right: 2, bottom: 2, left: 2 }}>
            <Tooltip
              cursor={false}
              contentStyle={{ fontSize: 11, padding: "2px 6px" }}
              labelFormatter={(_, payload) => String(payload?.[0]?.payload?.day ?? "")}
            />
            <Line
              type="monotone"
              dataKey={field}
              stroke={color}
              strokeWidth={1.5}
              // A line needs two days with data; a single day is drawn as its point.
              dot={points.filter((point) => point[field] !== null).length === 1 ? { r: 2.5, fill: color, strokeWidth: 0 } : false}
              isAnimationActive={false}
              connectNulls
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
    </Link>
  );
}

export function DashboardOverview() {
  const since = useLastLook();
  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api<z.infer<typeof listAgentsResponseSchema>>("/api/v1/agents") });
  const proposals = useQuery({
    queryKey: ["proposals", "pending-count"],
    queryFn: () => api<{ total: number }>("/api/v1/proposals/count?status=open"),
  });
  const offered = useQuery({
    queryKey: ["tasks", "home", "offered"],
    queryFn: () => api<Tasks>("/api/v1/tasks?status=offered&limit=200"),
  });
  const failed = useQuery({
    queryKey: ["tasks", "home", "failed"],
    queryFn: () => api<Tasks>("/api/v1/tasks?status=failed&limit=200"),
  });
  const alerts = useQuery({ queryKey: ["alerts", "recent"], queryFn: () => api<{ alerts: AlertDto[] }>("/api/v1/alerts?recent=1") });
  const to = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (TREND_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const series = useQuery({
    queryKey: ["metrics", "tasks", "home", from, to],
    queryFn: () => api<{ swarm: DayPoint[] }>(`/api/v1/metrics/tasks?from=${from}&to=${to}`),
  });

  const count = (tasks: Tasks | undefined) => (tasks ? `${tasks.tasks.length}${tasks.nextCursor ? "+" : ""}` : undefined);
  const failedSince =
    since === null || !failed.data ? undefined : failed.data.tasks.filter((t) => Date.parse(t.finishedAt ?? t.updatedAt) > since);
  const openAlerts = alerts.data?.alerts.filter((a) => a.resolvedAt === null);
  const newAlerts = since === null ? undefined : alerts.data?.alerts.filter((a) => Date.parse(a.firedAt) > since);
  const offline = agents.data?.agents.filter((a) => !a.online);
  const failingSetup = agents.data?.agents.filter((a) => a.setup?.status === "failed");
  const names = (list: { name: string; displayName: string }[] | undefined) =>
    list && list.length > 0 ? list.map((a) => a.name).join(", ") : null;

  const attentionError = [proposals, offered, failed, alerts, agents].find((query) => query.isError)?.error;

  const points = series.data?.swarm ?? [];
  const sum = (field: "completed" | "failed") => points.reduce((total, p) => total + p[field], 0);
  const decided = sum("completed") + sum("failed");
  const medians = points.map((p) => p.medianMs).filter((v): v is number => v !== null);

  return (
    <div>
      <PageHeader
        title="Dashboard"
        description={
          since === null
            ? "What needs you, and how the swarm is doing."
            : `What needs you, and what changed since ${formatRelative(new Date(since).toISOString())}.`
        }
      />
      <AlertBanner />
      {attentionError ? (
        <div className="-mx-4 -mt-4" data-testid="attention-error">
          <ErrorState error={attentionError} />
        </div>
      ) : null}
      <section aria-label="Needs attention" className="mb-6 grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" data-testid="attention">
        <Attention
          testId="attention-proposals"
          failed={proposals.isError}
          href="/proposals"
          label="Proposals waiting"
          count={proposals.data?.total}
          tone="warn"
          detail="identity changes"
        />
        <Attention
          testId="attention-offered"
          failed={offered.isError}
          href="/tasks?status=offered"
          label="Offered tasks waiting"
          count={count(offered.data)}
          tone="warn"
          detail="proposed by agents"
        />
        <Attention
          testId="attention-failed"
          failed={failed.isError}
          href="/tasks?status=failed"
          label="Failed since last look"
          count={failedSince?.length}
          tone="danger"
          detail={failedSince?.[0] ? `latest: ${failedSince[0].title}` : "no new failures"}
        />
        <Attention
          testId="attention-alerts"
          failed={alerts.isError}
          href="/metrics"
          label="Alerts open"
          count={openAlerts?.length}
          tone="danger"
          detail={newAlerts ? `${newAlerts.length} fired since last look` : undefined}
        />
        <Attention
          testId="attention-offline"
          failed={agents.isError}
          href="/agents"
          label="Agents offline"
          count={offline?.length}
          tone="neutral"
          detail={agents.data ? `of ${agents.data.agents.length}${names(offline) ? `: ${names(offline)}` : ""}` : undefined}
        />
        <Attention
          testId="attention-setup"
          failed={agents.isError}
          href={failingSetup?.[0] ? `/agents/${failingSetup[0].id}` : "/agents"}
          label="Setup failing"
          count={failingSetup?.length}
          tone="danger"
          detail={names(failingSetup) ?? "every reported setup ran"}
        />
      </section>

      <section aria-label="Trends" className="mb-6">
        <h2 className="mb-2 text-sm font-semibold">
          Last {TREND_DAYS} days{" "}
          <Link href="/metrics" className="ml-1 text-xs font-normal text-accent hover:underline">
            All metrics
          </Link>
        </h2>
        {series.isError ? (
          <div className="-mx-4" data-testid="trends-error">
            <ErrorState error={series.error} />
          </div>
        ) : series.isPending ? (
          <Loading label="Loading trends…" />
        ) : (
          <div className="grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="trends">
            <Trend
              testId="trend-completed"
              label="Completed"
              value={String(sum("completed"))}
              points={points}
              field="completed"
              color="var(--color-accent, #2563eb)"
            />
            <Trend testId="trend-failed" label="Failed" value={String(sum("failed"))} points={points} field="failed" color="#dc2626" />
            <Trend
              testId="trend-failure-rate"
              label="Failure rate"
              value={decided > 0 ? `${Math.round((sum("failed") / decided) * 100)}%` : "–"}
              points={points}
              field="failureRate"
              color="#d97706"
            />
            <Trend
              testId="trend-median"
              label="Median duration (latest day)"
              value={duration(medians.at(-1) ?? null)}
              points={points}
              field="medianMs"
              color="#7c3aed"
            />
          </div>
        )}
      </section>

      <Card>
        <CardHeader
          title="Agents"
          description="Who is in the swarm and whether a worker is connected."
          actions={
            <Link className="text-sm text-accent hover:underline" href="/agents">
              All agents
            </Link>
          }
        />
        {agents.isError ? (
          <div data-testid="agents-error">
            <ErrorState error={agents.error} />
          </div>
        ) : agents.isPending ? (
          <Loading />
        ) : agents.data && agents.data.agents.length > 0 ? (
          <ul className="divide-y divide-border">
            {agents.data.agents.slice(0, 8).map((agent) => (
              <li key={agent.id} className="flex items-center justify-between gap-3 px-4 py-2.5 text-sm">
                <Link href={`/agents/${agent.id}`} className="min-w-0 break-words hover:underline" data-testid="dashboard-agent">
                  <span className="font-medium">{agent.name}</span>
                  {agent.displayName && agent.displayName !== agent.name ? (
                    <span className="ml-2 text-fg-muted">{agent.displayName}</span>
                  ) : null}
                </Link>
                <span className="flex shrink-0 items-center gap-2">
                  {agent.setup?.status === "failed" ? (
                    <span className="text-xs text-danger" data-testid="setup-failed">
                      setup failing
                    </span>
                  ) : null}
                  <AgentStatusBadge agent={agent} />
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState title="No agents yet">Create your first agent, then start a worker with its token.</EmptyState>
        )}
      </Card>
    </div>
  );
}
