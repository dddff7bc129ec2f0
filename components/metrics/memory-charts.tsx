"use client";

// Memory growth per agent and per source (running totals), and retrieval health.
import { useState } from "react";
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, color, OUTCOME_COLORS, pct, SeriesToggle, shortDay, TOOLTIP_STYLE } from "./chart-kit";
import type { MemoryMetrics } from "./types";

export function MemoryGrowthChart({ data, isPending, error }: { data?: MemoryMetrics; isPending: boolean; error: unknown }) {
  const [by, setBy] = useState<"byAgent" | "bySource">("byAgent");
  const series = data?.[by] ?? [];
  const days = series[0]?.points.map((point) => point.day) ?? [];
  const rows = days.map((day, index) => Object.fromEntries([["day", day], ...series.map((s) => [s.label, s.points[index]?.total ?? 0])]));
  const total = series.reduce((sum, s) => sum + s.total, 0);
  return (
    <Card data-testid="chart-memory">
      <CardHeader
        title="Memory growth"
        description="Memories stored (chunks), running total, per agent or per source."
        actions={
          <SeriesToggle
            value={by}
            options={
              [
                ["byAgent", "Agent"],
                ["bySource", "Source"],
              ] as const
            }
            onChange={setBy}
          />
        }
      />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : total === 0 ? (
        <EmptyState title="No memories yet">
          Memories agents store (task results, failures, reflections, learnings) will accumulate here.
        </EmptyState>
      ) : (
        <ChartFrame>
          <ResponsiveContainer>
            <AreaChart data={rows} margin={{ left: 4, right: 16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
              <YAxis allowDecimals={false} width={40} {...AXIS} />
              <Tooltip {...TOOLTIP_STYLE} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {series.map((s, i) => (
                <Area
                  key={s.key}
                  dataKey={s.label}
                  stackId="m"
                  stroke={color(i)}
                  fill={color(i)}
                  fillOpacity={0.25}
                  isAnimationActive={false}
                />
              ))}
            </AreaChart>
          </ResponsiveContainer>
        </ChartFrame>
      )}
    </Card>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="rounded-md bg-muted px-3 py-2">
      <p className="text-xs text-fg-muted">{label}</p>
      <p className="text-lg font-semibold tabular-nums">{value}</p>
      {hint ? <p className="text-[11px] text-fg-muted">{hint}</p> : null}
    </div>
  );
}

export function RetrievalHealth({ data, isPending, error }: { data?: MemoryMetrics; isPending: boolean; error: unknown }) {
  const r = data?.retrieval;
  return (
    <Card data-testid="chart-retrieval">
      <CardHeader title="Retrieval health" description="Searches and prompt injections: did the best result reach the threshold?" />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : !r || r.total === 0 ? (
        <EmptyState title="No retrievals in this range">
          Each memory search and each injection of memories into a task prompt is recorded; hit rate, empty results and embedding use will
          show here.
        </EmptyState>
      ) : (
        <>
          <div className="grid grid-cols-2 gap-2 p-4 sm:grid-cols-4">
            <Stat
              label="Retrievals"
              value={String(r.total)}
              hint={Object.entries(r.byMode)
                .map(([m, n]) => `${m} ${n}`)
                .join(" · ")}
            />
            <Stat label="Hit rate" value={pct(r.hitRate)} hint="top score ≥ threshold" />
            <Stat label="Empty" value={pct(r.emptyRate)} hint="no result at all" />
            <Stat
              label="Embeddings used"
              value={pct(r.embeddingUsedRate)}
              hint={r.meanTopScore === null ? undefined : `mean top score ${r.meanTopScore.toFixed(2)}`}
            />
          </div>
          <ChartFrame height={160}>
            <ResponsiveContainer>
              <BarChart data={r.series} margin={{ left: 4, right: 16 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
                <YAxis allowDecimals={false} width={32} {...AXIS} />
                <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--muted)" }} />
                <Legend wrapperStyle={{ fontSize: 12 }} />
                <Bar dataKey="hits" stackId="r" fill={OUTCOME_COLORS.completed} isAnimationActive={false} />
                <Bar dataKey="misses" stackId="r" fill={OUTCOME_COLORS.edited} isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </ChartFrame>
        </>
      )}
    </Card>
  );
}
