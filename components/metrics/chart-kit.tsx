"use client";

// Shared pieces of the metric charts: a series palette that reads on both the
// light and the dark theme, axis and grid colours from the theme's CSS variables
// (set by CSS so they follow a theme switch), and number formatting.
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

export const SERIES_COLORS = ["#6366f1", "#f59e0b", "#10b981", "#ef4444", "#06b6d4", "#ec4899", "#84cc16", "#a855f7", "#f97316", "#14b8a6"];

export const OUTCOME_COLORS = {
  completed: "#10b981",
  failed: "#ef4444",
  cancelled: "#94a3b8",
  approved: "#10b981",
  edited: "#f59e0b",
  rejected: "#ef4444",
};

export const SOURCE_COLORS: Record<string, string> = {
  editor: "#6366f1",
  api: "#06b6d4",
  agent_write: "#f59e0b",
  approved_proposal: "#10b981",
  rollback: "#ef4444",
  session_sync: "#a855f7",
  bootstrap: "#ec4899",
  template: "#94a3b8",
};

export const color = (index: number) => SERIES_COLORS[index % SERIES_COLORS.length] ?? "#6366f1";

export const TOOLTIP_STYLE = {
  contentStyle: { background: "var(--panel)", border: "1px solid var(--border)", borderRadius: 6, color: "var(--fg)", fontSize: 12 },
  labelStyle: { color: "var(--fg-muted)" },
  itemStyle: { color: "var(--fg)" },
};

export const AXIS = { fontSize: 11, tickLine: false, axisLine: false } as const;

/** Wraps a chart so its axes, grid and legend take the theme's colours. */
export function ChartFrame({
  children,
  height = 240,
  className,
  testId,
}: {
  children: ReactNode;
  height?: number;
  className?: string;
  testId?: string;
}) {
  return (
    <div
      data-testid={testId}
      style={{ height }}
      className={cn(
        "w-full px-2 py-3 [&_.recharts-cartesian-axis-tick-value]:fill-fg-muted [&_.recharts-cartesian-grid_line]:stroke-border [&_.recharts-legend-item-text]:!text-fg-muted [&_.recharts-text]:fill-fg-muted",
        className,
      )}
    >
      {children}
    </div>
  );
}

export function pct(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return "–";
  return `${(value * 100).toFixed(digits)}%`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 90) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = s / 60;
  if (m < 90) return `${m.toFixed(m < 10 ? 1 : 0)} min`;
  return `${(m / 60).toFixed(1)} h`;
}

export function signed(value: number | null | undefined, format: (v: number) => string): string {
  if (value === null || value === undefined) return "–";
  return `${value > 0 ? "+" : value < 0 ? "−" : "±"}${format(Math.abs(value))}`;
}

export const shortDay = (day: string) => day.slice(5);

/** A small two-or-more-way switch for a chart's header (which series to show). */
export function SeriesToggle<K extends string>({
  value,
  options,
  onChange,
}: {
  value: K;
  options: ReadonlyArray<readonly [K, string]>;
  onChange: (value: K) => void;
}) {
  return (
    <div className="flex rounded-md border border-border p-0.5 text-xs">
      {options.map(([key, label]) => (
        <button
          key={key}
          type="button"
          aria-pressed={value === key}
          onClick={() => onChange(key)}
          className={`rounded px-2 py-1 ${value === key ? "bg-muted font-medium text-fg" : "text-fg-muted"}`}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
