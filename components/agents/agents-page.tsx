"use client";

import { useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { AgentStatusBadge } from "../agent-status-badge";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, PageHeader } from "../ui/card";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { CreateAgentDialog } from "./create-agent-dialog";
import { SetupStatusBadge } from "./setup-status";

export function AgentsPage() {
  const can = useCan();
  const [creating, setCreating] = useState(false);
  const agents = useQuery({
    queryKey: ["agents"],
    queryFn: () => api<{ agents: AgentDto[] }>("/api/v1/agents"),
    refetchInterval: 15_000,
  });
  const createButton = can.write ? (
    <Button onClick={() => setCreating(true)} data-testid="new-agent">
      <Plus className="size-4" aria-hidden /> New agent
    </Button>
  ) : null;

  return (
    <div>
      <PageHeader
        title="Agents"
        description="The members of your swarm, their workers and how much they may change about themselves."
        actions={createButton}
      />
      <Card>
        {agents.isPending ? (
          <Loading label="Loading agents…" />
        ) : agents.isError ? (
          <ErrorState error={agents.error} />
        ) : agents.data.agents.length === 0 ? (
          <EmptyState title="No agents yet" action={createButton}>
            Create an agent, give it a worker token, and start a worker with that token.
          </EmptyState>
        ) : (
          <div className="overflow-x-auto">
            <table className="stack-table w-full text-sm" data-testid="agents-table">
              <thead>
                <tr className="border-b border-border text-left text-xs text-fg-muted">
                  <th className="px-4 py-2 font-medium">Agent</th>
                  <th className="px-4 py-2 font-medium">Role</th>
                  <th className="px-4 py-2 font-medium">Status</th>
                  <th className="whitespace-nowrap px-4 py-2 font-medium">Security profile</th>
                  <th className="px-4 py-2 font-medium">Last seen</th>
                  <th className="px-4 py-2 font-medium">Worker</th>
                  <th className="px-4 py-2 font-medium">Setup</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {agents.data.agents.map((agent) => (
                  <tr key={agent.id} className="hover:bg-muted/50">
                    <td className="px-4 py-2.5">
                      <Link href={`/agents/${agent.id}`} className="font-medium hover:underline" data-testid="agent-link">
                        {agent.name}
                      </Link>{" "}
                      {agent.displayName ? (
                        <span className="ml-1 text-fg-muted" data-testid="agent-list-display-name">
                          {agent.displayName}
                        </span>
                      ) : null}
                    </td>
                    <td data-label="Role" className="px-4 py-2.5 capitalize">
                      {agent.role}
                    </td>
                    <td data-label="Status" className="px-4 py-2.5">
                      <AgentStatusBadge agent={agent} />
                    </td>
                    <td data-label="Security profile" className="px-4 py-2.5">
                      <Badge>{agent.securityProfile}</Badge>
                    </td>
                    <td data-label="Last seen" className="whitespace-nowrap px-4 py-2.5 text-fg-muted">
                      <RelativeTime iso={agent.lastSeenAt} />
                    </td>
                    <td data-label="Worker" className="px-4 py-2.5 text-fg-muted">
                      {agent.workerHostname ? `${agent.workerHostname} · v${agent.workerVersion ?? "?"}` : "none yet"}
                    </td>
                    <td data-label="Setup" className="whitespace-nowrap px-4 py-2.5">
                      <SetupStatusBadge setup={agent.setup} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      <CreateAgentDialog open={creating} onOpenChange={setCreating} />
    </div>
  );
}
