import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AgentIdentityPage } from "@/components/identity/agent-identity-page";
import { db } from "@/lib/db";

export const metadata: Metadata = { title: "Identity" };

export default async function IdentityPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // An unknown (or archived) agent answers 404 with the not-found page.
  if (!(await db.agent.findFirst({ where: { id, archivedAt: null }, select: { id: true } }))) notFound();
  return <AgentIdentityPage agentId={id} />;
}
