"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { z } from "zod";
import { api } from "@/lib/api-client";
import type { listAgentsResponseSchema } from "@/lib/contracts/agents";
import { AgentStatusBadge } from "./agent-status-badge";
import { AlertBanner } from "./metrics/alert-banner";
import { Card, CardHeader, PageHeader } from "./ui/card";
import { EmptyState, Loading } from "./ui/states";

export function DashboardOverview() {
  const agents = useQuery({ queryKey: ["agents"], queryFn: () => api<z.infer<typeof listAgentsResponseSchema>>("/api/v1/agents") });
  return (
    <div>
      <PageHeader title="Dashboard" description="Your swarm at a glance." />
      <AlertBanner />
      <Card>
        <CardHeader
          title="Agents"
          description="Who is in the swarm and whether a worker is connected."
          actions={
            <Link className="text-sm text-accent hover:underline" href="/agents">
              All agents
            </Link>
          }
        />
        {agents.isPending ? (
          <Loading />
        ) : agents.data && agents.data.agents.length > 0 ? (
          <ul className="divide-y divide-border">
            {agents.data.agents.slice(0, 8).map((agent) => (
              <li key={agent.id} className="flex items-center justify-between px-4 py-2.5 text-sm">
                <Link href={`/agents/${agent.id}`} className="font-medium hover:underline">
                  {agent.displayName || agent.name}
                </Link>
                <AgentStatusBadge agent={agent} />
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState title="No agents yet">Create your first agent, then start a worker with its token.</EmptyState>
        )}
      </Card>
    </div>
  );
}
