"use client";

// Identity evolution: every version of every identity file in the range, one row
// per agent (a file filter narrows it to one file), coloured by how it came to be,
// on a time axis that ends at the last change or now, never later. Clicking a point
// opens its diff.
import dynamic from "next/dynamic";
import { useMemo, useState } from "react";
import { CartesianGrid, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { AXIS, ChartFrame, SOURCE_COLORS, TOOLTIP_STYLE } from "./chart-kit";
import type { IdentityTimeline as Timeline, TimelineVersion } from "./types";

const VersionDiffDialog = dynamic(() => import("./version-diff-dialog").then((m) => m.VersionDiffDialog), { ssr: false });

type Point = TimelineVersion & { x: number; y: number; lane: string };

const LANE_PX = 24;

/** Room for an agent's name left of its lane: about 19 characters at the axis' 11 px. */
const LANE_LABEL_PX = 144;
const LANE_LABEL_CHARS = 19;

/**
 * An agent's name as its lane label: whole when it fits, else its start and its end
 * (where names usually differ) around an ellipsis; the full name is the label's tooltip.
 */
function laneLabel(name: string): string {
  if (name.length <= LANE_LABEL_CHARS) return name;
  const tail = 9;
  return `${name.slice(0, LANE_LABEL_CHARS - tail - 1)}…${name.slice(-tail)}`;
}

export function IdentityTimeline({ data, isPending, error }: { data?: Timeline; isPending: boolean; error: unknown }) {
  const [open, setOpen] = useState<string | null>(null);
  const [file, setFile] = useState("all");
  const files = useMemo(() => [...new Set((data?.versions ?? []).map((v) => v.kind))].sort(), [data]);
  const shown = useMemo(() => (data?.versions ?? []).filter((v) => file === "all" || v.kind === file), [data, file]);
  const { lanes, bySource } = useMemo(() => {
    const laneNames = [...new Set(shown.map((v) => v.agentName))].sort();
    const index = new Map(laneNames.map((name, i) => [name, i]));
    const groups: Record<string, Point[]> = {};
    for (const v of shown) {
      const point = { ...v, lane: v.agentName, x: Date.parse(v.createdAt), y: index.get(v.agentName) ?? 0 };
      groups[v.source] = [...(groups[v.source] ?? []), point];
    }
    return { lanes: laneNames, bySource: groups };
  }, [shown]);
  const height = Math.max(160, lanes.length * LANE_PX + 70);
  const times = shown.map((v) => Date.parse(v.createdAt));
  const first = times.length ? Math.min(...times) : 0;
  const last = times.length ? Math.max(...times) : 0;
  const span = last - first;
  // A little room either side of the points, but the axis never runs past now.
  const pad = Math.max(span * 0.03, 60_000);
  const domain: [number, number] = [first - pad, Math.min(last + pad, Math.max(last, Date.now()))];
  // Short spans get the time of day on each tick (to the second under two hours) so ticks stay apart.
  const tick = (v: number) => {
    const iso = new Date(v).toISOString();
    if (span < 2 * 3_600_000) return iso.slice(11, 19);
    return span < 4 * 86_400_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10);
  };
  return (
    <Card data-testid="chart-identity">
      <CardHeader
        title="Identity evolution"
        description="Each point is a version of an identity file; click one to see what changed."
        actions={
          <div className="flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-xs text-fg-muted">
            {files.length > 1 ? (
              <select
                aria-label="Identity file"
                data-testid="identity-file-filter"
                value={file}
                onChange={(event) => setFile(event.target.value)}
                className="h-7 rounded-md border border-border bg-panel px-2 text-xs text-fg"
              >
                <option value="all">All files</option>
                {files.map((kind) => (
                  <option key={kind} value={kind}>
                    {kind}
                  </option>
                ))}
              </select>
            ) : null}
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
      ) : !data || shown.length === 0 ? (
        <EmptyState title="No identity changes in this range">
          Every saved version of SOUL.md, IDENTITY.md, TOOLS.md and the other files appears here: operator edits, agent writes, approved
          proposals and rollbacks.
        </EmptyState>
      ) : (
        <ChartFrame height={height} testId="identity-timeline-plot">
          <ResponsiveContainer>
            <ScatterChart margin={{ left: 8, right: 24, top: 8 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis type="number" dataKey="x" domain={domain} allowDataOverflow tickFormatter={tick} tickCount={6} {...AXIS} />
              <YAxis
                type="number"
                dataKey="y"
                domain={[-0.5, lanes.length - 0.5]}
                ticks={lanes.map((_, i) => i)}
                tick={(props: { x?: number | string; y?: number | string; payload?: { value?: unknown } }) => {
                  const name = lanes[Number(props.payload?.value)] ?? "";
                  // The full name is the label's tooltip (beside the text, so the label reads as shown).
                  return (
                    <g data-testid="identity-lane">
                      <title>{name}</title>
                      <text
                        x={props.x}
                        y={props.y}
                        dy={4}
                        textAnchor="end"
                        fontSize={11}
                        className="recharts-text recharts-cartesian-axis-tick-value"
                      >
                        {laneLabel(name)}
                      </text>
                    </g>
                  );
                }}
                width={LANE_LABEL_PX}
                interval={0}
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
                        {point.agentName} · {point.kind} v{point.number}
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
