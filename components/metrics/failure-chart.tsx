"use client";

// Failure recurrence: the most frequent failure reasons (ids and numbers
// normalised out) and how often each came back, day by day.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, color, shortDay, TOOLTIP_STYLE } from "./chart-kit";
import type { FailureRecurrence } from "./types";

export function FailureChart({ data, isPending, error }: { data?: FailureRecurrence; isPending: boolean; error: unknown }) {
  const rows = data?.series.map((point) => Object.fromEntries([["day", point.day], ...point.counts.map((count, i) => [`r${i}`, count])]));
  return (
    <Card data-testid="chart-failures">
      <CardHeader
        title="Failure recurrence"
        description={
          data
            ? `${data.totalFailed} failures in ${data.groupCount} groups of the same reason.`
            : "Failure reasons grouped, counted per day."
        }
      />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : !data || data.totalFailed === 0 ? (
        <EmptyState title="No failures in this range">
          Failed tasks will be grouped by reason here (ids, numbers and hashes removed), so a failure that keeps coming back stands out.
        </EmptyState>
      ) : (
        <>
          <ChartFrame height={200}>
            <ResponsiveContainer>
              <BarChart data={rows} margin={{ left: 4, right: 16 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="day" tickFormatter={shortDay} {...AXIS} />
                <YAxis allowDecimals={false} width={32} {...AXIS} />
                <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--muted)" }} />
                <Legend
                  wrapperStyle={{ fontSize: 12 }}
                  formatter={(_, entry) =>
                    entry.dataKey ? truncate(data.groups[Number(String(entry.dataKey).slice(1))]?.key ?? "", 40) : ""
                  }
                />
                {data.groups.map((group, i) => (
                  <Bar key={group.key} dataKey={`r${i}`} name={group.key} stackId="f" fill={color(i)} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </ChartFrame>
          <ul className="divide-y divide-border border-t border-border text-sm" data-testid="failure-groups">
            {data.groups.map((group, i) => (
              <li key={group.key} className="flex items-start gap-3 px-4 py-2">
                <span className="mt-1.5 size-2.5 shrink-0 rounded-sm" style={{ background: color(i) }} />
                <div className="min-w-0 flex-1">
                  <p className="truncate font-mono text-xs" title={group.example}>
                    {group.key}
                  </p>
                  <p className="text-xs text-fg-muted">
                    {group.agents} agent{group.agents === 1 ? "" : "s"} ·{" "}
                    {group.firstSeen === group.lastSeen ? group.firstSeen : `${group.firstSeen} → ${group.lastSeen}`}
                  </p>
                </div>
                {group.recurring ? <Badge tone="warn">recurring</Badge> : null}
                <span className="w-10 text-right font-medium tabular-nums">{group.count}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}

function truncate(text: string, length: number) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
