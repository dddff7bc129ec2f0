"use client";

import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Cell, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api } from "@/lib/api-client";
import { Card, CardHeader } from "../ui/card";
import { ErrorState, Loading } from "../ui/states";
import type { MemoryHealth } from "./memory-types";

function Stat({
  label,
  value,
  hint,
  tone,
  testId,
}: {
  label: string;
  value: string;
  hint?: string;
  tone?: "ok" | "warn" | "danger";
  testId?: string;
}) {
  const color = tone === "danger" ? "text-danger" : tone === "warn" ? "text-warn" : tone === "ok" ? "text-ok" : "text-fg";
  return (
    <div className="rounded-md border border-border bg-muted/40 px-3 py-2">
      <div className="text-xs text-fg-muted">{label}</div>
      <div className={`text-lg font-semibold ${color}`} data-testid={testId}>
        {value}
      </div>
      {hint ? <div className="text-[11px] text-fg-muted">{hint}</div> : null}
    </div>
  );
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

const AXIS = { fontSize: 11, fill: "var(--color-fg-muted, #888)" };

export const HEALTH_QUERY_KEY = ["memories", "health"] as const;

/**
 * Retrieval health: are searches answered with embeddings, do injections reach tasks,
 * where do scores fall. Every retrieval counts (the server records each one:
 * lib/memory/search.ts): searches by people (this page, the operator API and MCP) and
 * by agents (`swarm memory search`), and injections, the memories put into a task's
 * prompt when its worker fetches the task. The panel says which is which.
 */
export function MemoryHealthPanel() {
  const health = useQuery({
    queryKey: HEALTH_QUERY_KEY,
    queryFn: () => api<MemoryHealth>("/api/v1/memories/health?days=14"),
    refetchInterval: 30_000,
  });
  if (health.isPending)
    return (
      <Card>
        <CardHeader title="Retrieval health" />
        <Loading />
      </Card>
    );
  if (health.isError)
    return (
      <Card>
        <CardHeader title="Retrieval health" />
        <ErrorState error={health.error} />
      </Card>
    );
  const h = health.data;
  const searches = h.perDay.reduce((sum, day) => sum + day.searches, 0);
  const injections = h.perDay.reduce((sum, day) => sum + day.injections, 0);
  const retrievals = searches + injections;
  const embedded = h.perDay.reduce((sum, day) => sum + day.withEmbeddings, 0);
  // Nothing retrieved yet: no share to judge (shown as "–", as the hit rate is).
  const share = retrievals > 0 ? Math.round((embedded / retrievals) * 100) : null;
  const none = `no searches or injections in the last ${h.days} days`;
  const days = h.perDay.map((day) => ({ ...day, label: day.day.slice(5) }));
  const buckets = h.scoreBuckets.map((bucket) => ({ ...bucket, label: bucket.from.toFixed(1) }));

  return (
    <Card data-testid="memory-health">
      <CardHeader
        title="Retrieval health"
        description={
          h.embedder.kind === "provider"
            ? `Embeddings: ${h.embedder.model} (provider)${h.provider.summaryModel ? ` · summaries: ${h.provider.summaryModel}` : ""} · last ${h.days} days`
            : h.embedder.kind === "local"
              ? `Embeddings: built-in word vectors (no provider configured) · last ${h.days} days`
              : `No embeddings: keyword search only · last ${h.days} days`
        }
      />
      <p className="px-4 pt-3 text-xs text-fg-muted" data-testid="health-counted">
        Counts every memory search, by people (the search above, the API, MCP) and by agents, and every injection: the memories put into a
        task's prompt when its worker fetches it. {h.totals.memories} memories stored.
      </p>
      <div className="grid grid-cols-2 gap-3 p-4 md:grid-cols-5">
        <Stat
          label="Searches + injections"
          value={String(retrievals)}
          hint={retrievals === 0 ? none : `${plural(searches, "search", "searches")} · ${plural(injections, "injection", "injections")}`}
          testId="health-retrievals"
        />
        <Stat
          label="Answered with embeddings"
          value={share === null ? "–" : `${share}%`}
          hint={share === null ? "nothing retrieved to judge" : `${retrievals - embedded} keyword-only`}
          tone={h.embedder.kind === "none" || share === null ? undefined : share < 80 ? "warn" : "ok"}
          testId="health-embedded-share"
        />
        <Stat
          label="Embedding failures"
          value={String(h.totals.failed)}
          hint={`${h.totals.pending} pending · ${h.totals.embedded} done`}
          tone={h.totals.failed > 0 ? "danger" : undefined}
        />
        <Stat
          label="Injections per task"
          value={h.injectionsPerTask.average.toFixed(1)}
          testId="health-injections-per-task"
          hint={`${plural(h.injectionsPerTask.injected, "memory", "memories")} into ${plural(h.injectionsPerTask.tasks, "task prompt", "task prompts")}`}
        />
        <Stat
          label="Hit rate"
          value={h.hitRate === null ? "–" : `${Math.round(h.hitRate * 100)}%`}
          hint={`top score ≥ threshold ${h.threshold.toFixed(2)} · ${h.totals.duplicatesFlagged} near-duplicates flagged`}
        />
      </div>
      <div className="grid gap-4 px-4 pb-4 lg:grid-cols-2">
        <div>
          <h3 className="mb-2 text-xs font-medium text-fg-muted">Searches and injections per day</h3>
          <div className="h-48">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={days}>
                <CartesianGrid strokeDasharray="3 3" stroke="var(--color-border, #444)" vertical={false} />
                <XAxis dataKey="label" tick={AXIS} />
                <YAxis allowDecimals={false} tick={AXIS} width={32} />
                <Tooltip contentStyle={{ fontSize: 12 }} />
                <Legend wrapperStyle={{ fontSize: 11 }} />
                <Bar dataKey="withEmbeddings" name="with embeddings" stackId="a" fill="#6366f1" />
                <Bar dataKey="keywordOnly" name="keyword only" stackId="a" fill="#f59e0b" />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </div>
        <div>
          <h3 className="mb-2 text-xs font-medium text-fg-muted">Top score of each search and injection vs the threshold</h3>
          <div className="h-48">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={buckets}>
                <CartesianGrid strokeDasharray="3 3" stroke="var(--color-border, #444)" vertical={false} />
                <XAxis dataKey="label" tick={AXIS} />
                <YAxis allowDecimals={false} tick={AXIS} width={32} />
                <Tooltip contentStyle={{ fontSize: 12 }} />
                <ReferenceLine
                  x={(Math.floor(h.threshold * 10) / 10).toFixed(1)}
                  stroke="#ef4444"
                  strokeDasharray="4 2"
                  label={{ value: "threshold", fontSize: 10, fill: "#ef4444" }}
                />
                <Bar dataKey="count" name="searches">
                  {buckets.map((bucket) => (
                    <Cell key={bucket.label} fill={bucket.aboveThreshold ? "#10b981" : "#9ca3af"} />
                  ))}
                </Bar>
              </BarChart>
            </ResponsiveContainer>
          </div>
        </div>
      </div>
      {h.fallbackReasons.length > 0 || h.recentFailures.length > 0 ? (
        <div className="grid gap-4 border-t border-border px-4 py-3 text-xs lg:grid-cols-2">
          <div>
            <h3 className="mb-1 font-medium text-fg-muted">Why retrievals went keyword-only</h3>
            <ul className="space-y-0.5">
              {h.fallbackReasons.map((reason) => (
                <li key={reason.reason} className="flex justify-between gap-2">
                  <span className="truncate font-mono">{reason.reason}</span>
                  <span>{reason.count}</span>
                </li>
              ))}
            </ul>
          </div>
          <div>
            <h3 className="mb-1 font-medium text-fg-muted">Recent embedding failures</h3>
            {h.recentFailures.length === 0 ? (
              <p className="text-fg-muted">None.</p>
            ) : (
              <ul className="space-y-0.5">
                {h.recentFailures.map((failure) => (
                  <li key={failure.id} className="truncate">
                    #{failure.id} {failure.name}: <span className="text-danger">{failure.error}</span> ({failure.attempts} attempts)
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      ) : null}
    </Card>
  );
}
