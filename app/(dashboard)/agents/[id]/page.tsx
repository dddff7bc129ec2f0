import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { AgentDetail } from "@/components/agents/agent-detail";
import { AgentTabs } from "@/components/agents/agent-tabs";
import { AgentIdentityPanel } from "@/components/identity/agent-identity-panel";
import { AgentToolsPanel } from "@/components/tools/agent-tools-panel";
import { db } from "@/lib/db";

export const metadata: Metadata = { title: "Agent" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // An unknown (or archived) agent answers 404 with the not-found page.
  if (!(await db.agent.findFirst({ where: { id, archivedAt: null }, select: { id: true } }))) notFound();
  return (
    <AgentDetail agentId={id}>
      <Suspense>
        <AgentTabs identity={<AgentIdentityPanel agentId={id} />} tools={<AgentToolsPanel agentId={id} />} />
      </Suspense>
    </AgentDetail>
  );
}
