"use client";

// A full-width page for one agent's identity files (the agent page embeds the same panel).
import { useQuery } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import Link from "next/link";
import { PageHeader } from "@/components/ui/card";
import { api } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { AgentIdentityPanel } from "./agent-identity-panel";

export function AgentIdentityPage({ agentId }: { agentId: string }) {
  const agent = useQuery({ queryKey: ["agents", agentId], queryFn: () => api<{ agent: AgentDto }>(`/api/v1/agents/${agentId}`) });
  const name = agent.data ? agent.data.agent.name : "Agent";
  return (
    <div>
      <Link href={`/agents/${agentId}`} className="mb-2 inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
        <ArrowLeft className="size-3.5" /> {name}
      </Link>
      <PageHeader
        title={`${name}: identity`}
        description="SOUL, IDENTITY, USER and the rest of what this agent is, with every version kept."
      />
      {agent.isError ? null : <AgentIdentityPanel agentId={agentId} />}
      {agent.isError ? <p className="text-sm text-danger">{agent.error.message}</p> : null}
    </div>
  );
}
