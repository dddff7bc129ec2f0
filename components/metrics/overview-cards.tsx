"use client";

// The headline numbers of the selected range.
import { Card } from "@/components/ui/card";
import { duration, pct } from "./chart-kit";
import type { MetricsOverview } from "./types";

function StatCard({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId?: string }) {
  return (
    <Card className="px-4 py-3" data-testid={testId}>
      <p className="text-xs text-fg-muted">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums">{value}</p>
      {hint ? <p className="mt-0.5 text-xs text-fg-muted">{hint}</p> : null}
    </Card>
  );
}

export function OverviewCards({ data }: { data?: MetricsOverview }) {
  const t = data?.tasks;
  const d = data?.durations;
  return (
    <div className="grid grid-cols-2 gap-3 lg:grid-cols-5" data-testid="metrics-overview">
      <StatCard
        label="Completed"
        value={t ? String(t.completed) : "–"}
        hint={t ? `${t.created} created · ${t.cancelled} cancelled` : undefined}
        testId="stat-completed"
      />
      <StatCard
        label="Failed"
        value={t ? String(t.failed) : "–"}
        hint={t ? `failure rate ${pct(t.failureRate, 1)}` : undefined}
        testId="stat-failed"
      />
      <StatCard label="Completion rate" value={pct(t?.completionRate, 1)} hint="completed ÷ (completed + failed)" />
      <StatCard
        label="Median duration"
        value={duration(d?.medianMs)}
        hint={d ? `p90 ${duration(d.p90Ms)} · ±${data?.durations.bucketErrorPct}%` : undefined}
      />
      <StatCard label="Throughput" value={data ? data.throughput.completedPerDay.toFixed(1) : "–"} hint="completed tasks per day" />
    </div>
  );
}
