import type { Metadata } from "next";
import { AgentIdentityPage } from "@/components/identity/agent-identity-page";

export const metadata: Metadata = { title: "Identity" };

export default async function IdentityPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AgentIdentityPage agentId={id} />;
}
