"use client";

// The learning dashboard (/metrics): is the swarm getting better, per agent and
// per identity version. Every chart follows the agent and date filter.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { z } from "zod";
import { PageHeader } from "@/components/ui/card";
import { Field, Input, Select } from "@/components/ui/input";
import { agentLabel } from "@/lib/agents/agent-label";
import { api } from "@/lib/api-client";
import type { listAgentsResponseSchema } from "@/lib/contracts/agents";
import { useTypedBeforeHydration } from "../use-typed-before-hydration";
import { FailureChart } from "./failure-chart";
import { IdentityTimeline } from "./identity-timeline";
import { MemoryGrowthChart, RetrievalHealth } from "./memory-charts";
import { OverviewCards } from "./overview-cards";
import { ProposalsChart } from "./proposals-chart";
import { SoulOutcomes } from "./soul-outcomes";
import { DurationChart, RateChart } from "./task-charts";
import type {
  FailureRecurrence,
  MemoryMetrics,
  MetricsOverview,
  ProposalDecisions,
  TaskSeries,
  IdentityTimeline as Timeline,
} from "./types";
import { type MetricsFilter, useMetric } from "./use-metrics";
import { WeeklyReport } from "./weekly-report";

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);
const PRESETS = [7, 30, 90] as const;

export function MetricsDashboard() {
  const [filter, setFilter] = useState<MetricsFilter>({ from: daysAgo(29), to: today(), agentId: "" });
  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api<z.infer<typeof listAgentsResponseSchema>>("/api/v1/agents") });
  const overview = useMetric<MetricsOverview>("overview", filter);
  const tasks = useMetric<TaskSeries>("tasks", filter);
  const failures = useMetric<FailureRecurrence>("failures", filter);
  const memory = useMetric<MemoryMetrics>("memory", filter);
  const identity = useMetric<Timeline>("identity", filter);
  const proposals = useMetric<ProposalDecisions>("proposals", filter);
  // A cleared date box keeps the range's last date rather than dropping the bound.
  const setDate = (bound: "from" | "to") => (date: string) => {
    if (date) setFilter((current) => ({ ...current, [bound]: date }));
  };
  const fromBox = useTypedBeforeHydration<HTMLInputElement>(filter.from, setDate("from"));
  const toBox = useTypedBeforeHydration<HTMLInputElement>(filter.to, setDate("to"));
  const rangeError = filter.from > filter.to ? "The start is after the end." : null;

  return (
    <div className="space-y-4">
      <PageHeader title="Metrics" description="Is the swarm getting better? Outcomes over time, per agent and per identity version." />
      <div className="flex flex-wrap items-end gap-3 rounded-lg border border-border bg-panel px-4 py-3" data-testid="metrics-filter">
        <div className="w-56">
          <Field label="Agent" htmlFor="metrics-agent">
            <Select
              id="metrics-agent"
              data-testid="metrics-agent"
              value={filter.agentId}
              onChange={(e) => {
                const agentId = e.target.value;
                setFilter((current) => ({ ...current, agentId }));
              }}
            >
              <option value="">Whole swarm</option>
              {agents.data?.agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agentLabel(agent)}
                </option>
              ))}
            </Select>
          </Field>
        </div>
        <div className="w-40">
          <Field label="From" htmlFor="metrics-from">
            <Input
              id="metrics-from"
              type="date"
              ref={fromBox}
              value={filter.from}
              max={filter.to}
              onChange={(e) => setDate("from")(e.target.value)}
            />
          </Field>
        </div>
        <div className="w-40">
          <Field label="To" htmlFor="metrics-to">
            <Input
              id="metrics-to"
              type="date"
              ref={toBox}
              value={filter.to}
              min={filter.from}
              onChange={(e) => setDate("to")(e.target.value)}
            />
          </Field>
        </div>
        <div className="flex gap-1 pb-0.5">
          {PRESETS.map((days) => (
            <button
              key={days}
              type="button"
              className="h-9 rounded-md border border-border px-3 text-sm text-fg-muted hover:bg-muted hover:text-fg"
              onClick={() => setFilter((current) => ({ ...current, from: daysAgo(days - 1), to: today() }))}
            >
              {days} days
            </button>
          ))}
        </div>
        {rangeError ? (
          <p className="pb-2 text-sm text-danger" role="alert">
            {rangeError}
          </p>
        ) : null}
      </div>

      <OverviewCards data={overview.data} />
      <div className="grid gap-4 xl:grid-cols-2">
        <RateChart data={tasks.data} isPending={tasks.isPending} error={tasks.error} />
        <DurationChart data={tasks.data} isPending={tasks.isPending} error={tasks.error} />
      </div>
      <FailureChart data={failures.data} isPending={failures.isPending} error={failures.error} />
      <IdentityTimeline data={identity.data} isPending={identity.isPending} error={identity.error} />
      <div className="grid gap-4 xl:grid-cols-2">
        <SoulOutcomes agentId={filter.agentId} />
        <ProposalsChart data={proposals.data} isPending={proposals.isPending} error={proposals.error} />
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <MemoryGrowthChart data={memory.data} isPending={memory.isPending} error={memory.error} />
        <RetrievalHealth data={memory.data} isPending={memory.isPending} error={memory.error} />
      </div>
      <WeeklyReport />
    </div>
  );
}
