import type { AgentDto } from "@/lib/contracts/agents";
import { Badge } from "./ui/badge";

export function AgentStatusBadge({ agent }: { agent: Pick<AgentDto, "status" | "online"> }) {
  if (!agent.online) return <Badge tone="neutral">offline</Badge>;
  return agent.status === "busy" ? <Badge tone="accent">busy</Badge> : <Badge tone="ok">idle</Badge>;
}
