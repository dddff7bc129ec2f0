"use client";

// Outcome per SOUL.md version: how the agent's tasks went under each version of
// its soul, and what changed against the version before, so an operator can see
// whether a change helped.
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";
import { AXIS, ChartFrame, duration, OUTCOME_COLORS, pct, signed, TOOLTIP_STYLE } from "./chart-kit";
import type { SoulOutcome } from "./types";

const label = (v: SoulOutcome) => (v.versionId ? `v${v.number}` : "none");

export function SoulOutcomes({ agentId }: { agentId: string }) {
  const query = useQuery({
    queryKey: ["metrics", "soul-outcomes", agentId],
    queryFn: () => api<{ versions: SoulOutcome[] }>(`/api/v1/metrics/soul-outcomes?agentId=${encodeURIComponent(agentId)}`),
    enabled: Boolean(agentId),
    refetchInterval: 30_000,
  });
  const versions = query.data?.versions ?? [];
  const withTasks = versions.filter((v) => v.tasks > 0);
  return (
    <Card data-testid="chart-soul-outcomes">
      <CardHeader
        title="Outcome per SOUL.md version"
        description="Success rate and median duration of the tasks run under each version of the agent's SOUL.md (all time), against the version before."
      />
      {!agentId ? (
        <EmptyState title="Pick an agent">
          Choose an agent in the filter above to see how its tasks went under each version of its SOUL.md.
        </EmptyState>
      ) : query.isPending ? (
        <Loading />
      ) : query.error ? (
        <ErrorState error={query.error} />
      ) : withTasks.length === 0 ? (
        <EmptyState title="No finished tasks for this agent yet">
          Every task records the SOUL.md version it ran under; once tasks finish, each version's success rate appears here with the change
          against the previous one.
        </EmptyState>
      ) : (
        <>
          <ChartFrame height={180}>
            <ResponsiveContainer>
              <BarChart data={withTasks.map((v) => ({ ...v, name: label(v) }))} margin={{ left: 4, right: 16 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="name" {...AXIS} />
                <YAxis domain={[0, 1]} tickFormatter={(v) => pct(v)} width={44} {...AXIS} />
                <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--muted)" }} formatter={(value) => pct(value as number, 1)} />
                <Bar dataKey="successRate" name="success rate" isAnimationActive={false}>
                  {withTasks.map((v) => (
                    <Cell
                      key={v.versionId ?? "none"}
                      fill={(v.successRateChange ?? 0) < 0 ? OUTCOME_COLORS.failed : OUTCOME_COLORS.completed}
                    />
                  ))}
                </Bar>
              </BarChart>
            </ResponsiveContainer>
          </ChartFrame>
          <div className="overflow-x-auto border-t border-border">
            <table className="w-full text-sm whitespace-nowrap" data-testid="soul-outcomes-table">
              <thead className="text-left text-xs text-fg-muted">
                <tr>
                  <th className="px-4 py-2 font-medium">Version</th>
                  <th className="px-2 py-2 font-medium">How</th>
                  <th className="px-2 py-2 text-right font-medium">Tasks</th>
                  <th className="px-2 py-2 text-right font-medium">Success</th>
                  <th className="px-2 py-2 text-right font-medium">vs before</th>
                  <th className="px-2 py-2 text-right font-medium">Median</th>
                  <th className="px-4 py-2 text-right font-medium">vs before</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {versions.map((v) => (
                  <tr key={v.versionId ?? "none"}>
                    <td className="px-4 py-2 font-medium">
                      {label(v)}
                      {v.createdAt ? <span className="ml-2 text-xs text-fg-muted">{v.createdAt.slice(0, 10)}</span> : null}
                    </td>
                    <td className="px-2 py-2">
                      <Badge>{v.source.replace(/_/g, " ")}</Badge>
                    </td>
                    <td className="px-2 py-2 text-right tabular-nums">{v.tasks}</td>
                    <td className="px-2 py-2 text-right tabular-nums">{pct(v.successRate, 1)}</td>
                    <td className={`px-2 py-2 text-right tabular-nums ${tone(v.successRateChange, true)}`}>
                      {signed(v.successRateChange, (x) => pct(x, 1))}
                    </td>
                    <td className="px-2 py-2 text-right tabular-nums">{duration(v.medianMs)}</td>
                    <td className={`px-4 py-2 text-right tabular-nums ${tone(v.medianMsChange, false)}`}>
                      {signed(v.medianMsChange, duration)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Card>
  );
}

function tone(change: number | null, higherIsBetter: boolean) {
  if (!change) return "text-fg-muted";
  return change > 0 === higherIsBetter ? "text-ok" : "text-danger";
}
