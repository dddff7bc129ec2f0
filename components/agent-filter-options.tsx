import { agentLabel } from "@/lib/agents/agent-label";

/**
 * The options of an "agent" filter: all agents, then each one. An agent picked by a
 * link (`?agentId=…`) shows as loading until the list has come, and as unknown if it
 * is not in it (deleted), so the picker never claims "All agents" while the page is
 * filtered by one.
 */
export function AgentFilterOptions({
  agents,
  picked,
  loading,
}: {
  agents: Array<{ id: string; name: string; displayName?: string | null }>;
  picked: string;
  loading: boolean;
}) {
  return (
    <>
      <option value="">All agents</option>
      {picked && !agents.some((agent) => agent.id === picked) ? (
        <option value={picked}>{loading ? "Loading agents…" : "Unknown agent"}</option>
      ) : null}
      {agents.map((agent) => (
        <option key={agent.id} value={agent.id}>
          {agentLabel(agent)}
        </option>
      ))}
    </>
  );
}
