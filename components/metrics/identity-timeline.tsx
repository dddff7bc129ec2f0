"use client";

// Identity evolution: every version of every identity file in the range, one row
// per agent and file, coloured by how it came to be. Clicking a point opens its diff.
import dynamic from "next/dynamic";
import { useMemo, useState } from "react";
import { CartesianGrid, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, SOURCE_COLORS, TOOLTIP_STYLE } from "./chart-kit";
import type { IdentityTimeline as Timeline, TimelineVersion } from "./types";

const VersionDiffDialog = dynamic(() => import("./version-diff-dialog").then((m) => m.VersionDiffDialog), { ssr: false });

type Point = TimelineVersion & { x: number; y: number; lane: string };

export function IdentityTimeline({ data, isPending, error }: { data?: Timeline; isPending: boolean; error: unknown }) {
  const [open, setOpen] = useState<string | null>(null);
  const { lanes, bySource } = useMemo(() => {
    const laneNames = [...new Set((data?.versions ?? []).map((v) => `${v.agentName} · ${v.kind}`))].sort();
    const index = new Map(laneNames.map((name, i) => [name, i]));
    const groups: Record<string, Point[]> = {};
    for (const v of data?.versions ?? []) {
      const lane = `${v.agentName} · ${v.kind}`;
      const point = { ...v, lane, x: Date.parse(v.createdAt), y: index.get(lane) ?? 0 };
      groups[v.source] = [...(groups[v.source] ?? []), point];
    }
    return { lanes: laneNames, bySource: groups };
  }, [data]);
  const height = Math.max(160, lanes.length * 28 + 70);
  const times = (data?.versions ?? []).map((v) => Date.parse(v.createdAt));
  // Short spans get the hour on each tick so two ticks of one day stay apart.
  const span = times.length ? Math.max(...times) - Math.min(...times) : 0;
  const tick = (v: number) => {
    const iso = new Date(v).toISOString();
    return span < 4 * 86_400_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10);
  };
  return (
    <Card data-testid="chart-identity">
      <CardHeader
        title="Identity evolution"
        description="Each point is a version of an identity file; click one to see what changed."
        actions={
          <div className="flex flex-wrap justify-end gap-x-3 gap-y-1 text-xs text-fg-muted">
            {Object.keys(bySource).map((source) => (
              <span key={source} className="inline-flex items-center gap-1">
                <span className="size-2.5 rounded-full" style={{ background: SOURCE_COLORS[source] ?? "#94a3b8" }} />
                {source.replace(/_/g, " ")}
              </span>
            ))}
          </div>
        }
      />
      {isPending ? (
        <Loading />
      ) : error ? (
        <ErrorState error={error} />
      ) : !data || data.versions.length === 0 ? (
        <EmptyState title="No identity changes in this range">
          Every saved version of SOUL.md, IDENTITY.md, TOOLS.md and the other files appears here: operator edits, agent writes, approved
          proposals and rollbacks.
        </EmptyState>
      ) : (
        <ChartFrame height={height} testId="identity-timeline-plot">
          <ResponsiveContainer>
            <ScatterChart margin={{ left: 8, right: 24, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis
                type="number"
                dataKey="x"
                domain={["dataMin - 3600000", "dataMax + 3600000"]}
                tickFormatter={tick}
                tickCount={6}
                {...AXIS}
              />
              <YAxis
                type="number"
                dataKey="y"
                domain={[-0.5, lanes.length - 0.5]}
                ticks={lanes.map((_, i) => i)}
                tickFormatter={(i) => lanes[i] ?? ""}
                width={170}
                reversed
                {...AXIS}
              />
              <Tooltip
                {...TOOLTIP_STYLE}
                cursor={{ strokeDasharray: "3 3" }}
                content={({ payload }) => {
                  const point = payload?.[0]?.payload as Point | undefined;
                  if (!point) return null;
                  return (
                    <div className="rounded-md border border-border bg-panel px-3 py-2 text-xs shadow">
                      <p className="font-medium">
                        {point.lane} v{point.number}
                      </p>
                      <p className="text-fg-muted">
                        {point.source.replace(/_/g, " ")} · {new Date(point.createdAt).toLocaleString()}
                      </p>
                      {point.reason ? <p className="mt-1 max-w-xs">{point.reason}</p> : null}
                      <p className="mt-1 text-accent">Click to see the diff</p>
                    </div>
                  );
                }}
              />
              {Object.entries(bySource).map(([source, points]) => (
                <Scatter
                  key={source}
                  name={source}
                  data={points}
                  fill={SOURCE_COLORS[source] ?? "#94a3b8"}
                  isAnimationActive={false}
                  cursor="pointer"
                  onClick={(point) => setOpen((point as unknown as { payload?: Point }).payload?.id ?? (point as unknown as Point).id)}
                  shape={(props: { cx?: number; cy?: number; fill?: string; payload?: Point }) => (
                    <circle
                      cx={props.cx}
                      cy={props.cy}
                      r={6}
                      fill={props.fill}
                      stroke="var(--panel)"
                      strokeWidth={1.5}
                      data-testid="identity-point"
                      data-version-id={props.payload?.id}
                      style={{ cursor: "pointer" }}
                    />
                  )}
                />
              ))}
            </ScatterChart>
          </ResponsiveContainer>
        </ChartFrame>
      )}
      {data?.truncated ? (
        <p className="px-4 pb-3 text-xs text-fg-muted">Showing the latest 2,000 versions; narrow the range to see all.</p>
      ) : null}
      <VersionDiffDialog versionId={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
