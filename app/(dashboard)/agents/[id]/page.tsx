import type { Metadata } from "next";
import { AgentDetail } from "@/components/agents/agent-detail";
import { AgentIdentityPanel } from "@/components/identity/agent-identity-panel";

export const metadata: Metadata = { title: "Agent" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <AgentDetail agentId={id}>
      <AgentIdentityPanel agentId={id} />
    </AgentDetail>
  );
}
