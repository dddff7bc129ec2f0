"use client";

// The metric queries of the /metrics page: one per endpoint, keyed by the filter,
// refreshed every 30 s so the page stays live while it is open.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";

export type MetricsFilter = { from: string; to: string; agentId: string };

const LIVE = 30_000;

export function metricsSearch(filter: MetricsFilter): string {
  const params = new URLSearchParams({ from: filter.from, to: filter.to });
  if (filter.agentId) params.set("agentId", filter.agentId);
  return params.toString();
}

export function useMetric<T>(endpoint: string, filter: MetricsFilter, enabled = true) {
  return useQuery({
    queryKey: ["metrics", endpoint, filter],
    queryFn: () => api<T>(`/api/v1/metrics/${endpoint}?${metricsSearch(filter)}`),
    refetchInterval: LIVE,
    placeholderData: (previous) => previous,
    enabled,
  });
}
