"use client";

// Completion / failure rate over time per agent, and duration trends (median, p90).
import { useState } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, color, duration, pct, SeriesToggle, shortDay, TOOLTIP_STYLE } from "./chart-kit";
import type { TaskSeries } from "./types";

function hasOutcomes(series: TaskSeries) {
  return series.swarm.some((point) => point.completed + point.failed > 0);
}

export function RateChart({ data, isPending, error }: { data?: TaskSeries; isPending: boolean; error: unknown }) {
  const [metric, setMetric] = useState<"completionRate" | "failureRate">("completionRate");
  const agents = data?.agents.filter((agent) => agent.points.some((p) => p.completed + p.failed > 0)) ?? [];
  const rows =
    data?.swarm.map((point, index) => {
      const row: Record<string, string | number | null> = { day: point.day };
      for (const agent of agents) row[agent.agentName] = agent.points[index]?.[metric] ?? null;
      return row;
    }) ?? [];
  return (
    <Card data-testid="chart-rates">
      <CardHeader
        title="Completion and failure rate"
        description="Per agent and day: completed ÷ (completed + failed). Cancelled tasks are left out."
        actions={
          <SeriesToggle
            value={metric}
            options={
              [
                ["completionRate", "Completion"],
                ["failureRate", "Failure"],
              ] as const
            }
            onChange={setMetric}
          />
        }
      />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : !data || !hasOutcomes(data) ? (
        <EmptyState title="No finished tasks in this range">
          Each line will show one agent's share of tasks completed (or failed) per day, once tasks finish.
        </EmptyState>
      ) : (
        <ChartFrame testId="chart-rates-plot">
          <ResponsiveContainer>
            <LineChart data={rows} margin={{ left: 4, right: 16, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
              <YAxis domain={[0, 1]} tickFormatter={(v) => pct(v)} width={44} {...AXIS} />
              <Tooltip {...TOOLTIP_STYLE} formatter={(value) => pct(value as number, 1)} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {agents.map((agent, index) => (
                <Line
                  key={agent.agentId ?? "none"}
                  dataKey={agent.agentName}
                  stroke={color(index)}
                  strokeWidth={2}
                  dot={{ r: 2 }}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </ChartFrame>
      )}
    </Card>
  );
}

export function DurationChart({ data, isPending, error }: { data?: TaskSeries; isPending: boolean; error: unknown }) {
  const hasDurations = data?.swarm.some((point) => point.medianMs !== null);
  return (
    <Card data-testid="chart-durations">
      <CardHeader title="Task duration" description="Median and p90 of completed tasks per day (log-scale buckets, within about 9 %)." />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : !hasDurations ? (
        <EmptyState title="No completed tasks in this range">The median and p90 time from claim to completion will appear here.</EmptyState>
      ) : (
        <ChartFrame testId="chart-durations-plot">
          <ResponsiveContainer>
            <LineChart data={data?.swarm} margin={{ left: 4, right: 16, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
              {/* A non-breaking space keeps "1.7 min" on one line: recharts wraps a tick at spaces. */}
              <YAxis tickFormatter={(v) => (v === 0 ? "0" : duration(v).replace(" ", "\u00a0"))} width={60} {...AXIS} />
              <Tooltip {...TOOLTIP_STYLE} formatter={(value) => duration(value as number)} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Line
                dataKey="medianMs"
                name="median"
                stroke={color(0)}
                strokeWidth={2}
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />
              <Line
                dataKey="p90Ms"
                name="p90"
                stroke={color(1)}
                strokeWidth={2}
                strokeDasharray="5 3"
                dot={{ r: 2 }}
                connectNulls
                isAnimationActive={false}
              />
            </LineChart>
          </ResponsiveContainer>
        </ChartFrame>
      )}
    </Card>
  );
}
