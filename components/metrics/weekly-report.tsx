"use client";

// The weekly report: the last 7 days against the 7 before (swarm-wide), the top
// failure reasons of the week and the agents whose failure rate moved the most.
import { useQuery } from "@tanstack/react-query";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";
import { duration, pct, signed } from "./chart-kit";
import type { WeeklyReport as Report } from "./types";

function Compare({
  label,
  now,
  before,
  change,
  better,
}: {
  label: string;
  now: string;
  before: string;
  change: string;
  better: boolean | null;
}) {
  return (
    <div className="rounded-md bg-muted px-3 py-2">
      <p className="text-xs text-fg-muted">{label}</p>
      <p className="text-lg font-semibold tabular-nums">{now}</p>
      <p className="text-xs text-fg-muted">
        {before === "–" ? (
          // Nothing to compare with: say so rather than "– · –".
          "none last week"
        ) : (
          <>
            last week {before} · <span className={better === null ? "" : better ? "text-ok" : "text-danger"}>{change}</span>
          </>
        )}
      </p>
    </div>
  );
}

export function WeeklyReport() {
  const query = useQuery({
    queryKey: ["metrics", "weekly-report"],
    queryFn: () => api<Report>("/api/v1/metrics/weekly-report"),
    refetchInterval: 60_000,
  });
  const r = query.data;
  const empty = r && r.thisWeek.tasks.created + r.lastWeek.tasks.created + r.thisWeek.tasks.completed + r.lastWeek.tasks.completed === 0;
  // An agent that finished nothing in either week has no rate to compare: no row of dashes for it.
  const finished = (week: { completed: number; failed: number }) => week.completed + week.failed;
  const changes = r ? r.biggestChanges.filter((agent) => finished(agent.thisWeek) + finished(agent.lastWeek) > 0) : [];
  return (
    <Card data-testid="weekly-report">
      <CardHeader
        title="Weekly report"
        description={r ? `${r.thisWeek.from} → ${r.thisWeek.to}, against the 7 days before (whole swarm).` : "This week against last."}
      />
      {query.isPending ? (
        <Loading />
      ) : query.error ? (
        <ErrorState error={query.error} />
      ) : !r || empty ? (
        <EmptyState title="Nothing to compare yet">
          Once tasks run for a week, this compares it with the week before: outcomes, durations, recurring failures and who changed most.
        </EmptyState>
      ) : (
        <div className="space-y-4 p-4">
          <div className="grid grid-cols-2 gap-2 lg:grid-cols-4">
            <Compare
              label="Completed"
              now={String(r.thisWeek.tasks.completed)}
              before={String(r.lastWeek.tasks.completed)}
              change={signed(r.change.completed, String)}
              better={r.change.completed === 0 ? null : r.change.completed > 0}
            />
            <Compare
              label="Failed"
              now={String(r.thisWeek.tasks.failed)}
              before={String(r.lastWeek.tasks.failed)}
              change={signed(r.change.failed, String)}
              better={r.change.failed === 0 ? null : r.change.failed < 0}
            />
            <Compare
              label="Failure rate"
              now={pct(r.thisWeek.tasks.failureRate, 1)}
              before={pct(r.lastWeek.tasks.failureRate, 1)}
              change={signed(r.change.failureRate, (x) => pct(x, 1))}
              better={!r.change.failureRate ? null : r.change.failureRate < 0}
            />
            <Compare
              label="Median duration"
              now={duration(r.thisWeek.durations.medianMs)}
              before={duration(r.lastWeek.durations.medianMs)}
              change={signed(r.change.medianMs, duration)}
              better={!r.change.medianMs ? null : r.change.medianMs < 0}
            />
          </div>
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <div className="min-w-0">
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-fg-muted">Top failure reasons this week</h3>
              {r.topFailureReasons.length === 0 ? (
                <p className="text-sm text-fg-muted">No failures this week.</p>
              ) : (
                <ul className="divide-y divide-border text-sm">
                  {r.topFailureReasons.map((reason) => (
                    <li key={reason.key} className="flex items-start gap-2 py-1.5" data-testid="weekly-failure-reason">
                      <span className="line-clamp-2 min-w-0 flex-1 break-words font-mono text-xs" title={reason.example}>
                        {reason.key}
                      </span>
                      <span className="text-xs text-fg-muted">last week {reason.lastWeekCount}</span>
                      <span className="w-8 text-right font-medium tabular-nums">{reason.count}</span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div className="min-w-0">
              <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-fg-muted">Biggest changes</h3>
              {changes.length === 0 ? (
                <p className="text-sm text-fg-muted">No agent finished a task in these two weeks.</p>
              ) : (
                <ul className="divide-y divide-border text-sm">
                  {changes.map((agent) => (
                    <li key={agent.agentId} className="flex flex-wrap items-baseline gap-x-2 py-1.5" data-testid="weekly-agent">
                      <span className="min-w-0 flex-1 basis-48 break-words font-medium" data-testid="weekly-agent-name">
                        {agent.agentName}
                      </span>
                      <span className="ml-auto flex items-baseline gap-2">
                        <span className="text-xs text-fg-muted">
                          {agent.failureRateChange === null
                            ? `${finished(agent.lastWeek)} → ${finished(agent.thisWeek)} tasks`
                            : `${pct(agent.lastWeek.failureRate)} → ${pct(agent.thisWeek.failureRate)} failed`}
                        </span>
                        <span
                          className={`text-right tabular-nums ${agent.failureRateChange === null ? "text-xs text-fg-muted" : agent.failureRateChange > 0 ? "text-danger" : "text-ok"}`}
                          title={
                            agent.failureRateChange === null
                              ? "Too few finished tasks in one of the weeks to compare failure rates"
                              : undefined
                          }
                        >
                          {agent.failureRateChange === null ? "too few to compare" : signed(agent.failureRateChange, (x) => pct(x, 1))}
                        </span>
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        </div>
      )}
    </Card>
  );
}
