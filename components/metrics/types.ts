// Response shapes of the metric endpoints as the page reads them (lib/metrics/*).
import type { MetricsOverview } from "@/lib/contracts/metrics";

export type { MetricsOverview };

export type DayPoint = {
  day: string;
  created: number;
  completed: number;
  failed: number;
  cancelled: number;
  completionRate: number | null;
  failureRate: number | null;
  medianMs: number | null;
  p90Ms: number | null;
};

export type TaskSeries = { swarm: DayPoint[]; agents: Array<{ agentId: string | null; agentName: string; points: DayPoint[] }> };

export type FailureRecurrence = {
  totalFailed: number;
  groupCount: number;
  groups: Array<{ key: string; example: string; count: number; agents: number; firstSeen: string; lastSeen: string; recurring: boolean }>;
  series: Array<{ day: string; counts: number[] }>;
};

type Cumulative = {
  key: string;
  label: string;
  start: number;
  total: number;
  points: Array<{ day: string; added: number; total: number }>;
};
export type MemoryMetrics = {
  byAgent: Cumulative[];
  bySource: Cumulative[];
  retrieval: {
    total: number;
    byMode: Record<string, number>;
    embeddingUsedRate: number | null;
    emptyRate: number | null;
    hitRate: number | null;
    meanTopScore: number | null;
    series: Array<{ day: string; count: number; hits: number; misses: number; empty: number }>;
  };
};

export type TimelineVersion = {
  id: string;
  agentId: string;
  agentName: string;
  kind: string;
  number: number;
  source: string;
  authorType: string;
  reason: string | null;
  deleted: boolean;
  createdAt: string;
};
export type IdentityTimeline = { versions: TimelineVersion[]; bySource: Record<string, number>; truncated: boolean };

export type SoulOutcome = {
  versionId: string | null;
  number: number;
  source: string;
  reason: string | null;
  createdAt: string | null;
  tasks: number;
  completed: number;
  failed: number;
  successRate: number | null;
  meanMs: number | null;
  medianMs: number | null;
  previousVersionId: string | null;
  successRateChange: number | null;
  medianMsChange: number | null;
};

export type ProposalDecisions = {
  totals: { approved: number; edited: number; rejected: number; pending: number };
  series: Array<{ day: string; approved: number; edited: number; rejected: number }>;
};

type WeekSummary = {
  from: string;
  to: string;
  tasks: {
    created: number;
    completed: number;
    failed: number;
    cancelled: number;
    completionRate: number | null;
    failureRate: number | null;
  };
  durations: { count: number; meanMs: number | null; medianMs: number | null; p90Ms: number | null };
};
export type WeeklyReport = {
  thisWeek: WeekSummary;
  lastWeek: WeekSummary;
  change: { completed: number; failed: number; failureRate: number | null; medianMs: number | null };
  topFailureReasons: Array<{ key: string; example: string; count: number; lastWeekCount: number; agents: number }>;
  biggestChanges: Array<{
    agentId: string;
    agentName: string;
    thisWeek: { completed: number; failed: number; failureRate: number | null };
    lastWeek: { completed: number; failed: number; failureRate: number | null };
    failureRateChange: number | null;
    completedChange: number;
  }>;
};
