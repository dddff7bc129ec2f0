import { agentLabel } from "@/lib/agents/agent-label";

/**
 * The options of an "agent" filter: all agents, then each one. An agent picked by a
 * link (`?agentId=…`) shows as loading until the list has come, as unknown if it is
 * not in it (deleted), and as unavailable if the list could not be loaded, so the
 * picker never claims "All agents" while the page is filtered by one.
 */
export function AgentFilterOptions({
  agents,
  picked,
  loading,
  failed,
}: {
  agents: Array<{ id: string; name: string; displayName?: string | null }>;
  picked: string;
  loading: boolean;
  failed: boolean;
}) {
  return (
    <>
      <option value="">All agents</option>
      {picked && !agents.some((agent) => agent.id === picked) ? (
        <option value={picked}>{loading ? "Loading agents…" : failed ? "Agents unavailable" : "Unknown agent"}</option>
      ) : null}
      {agents.map((agent) => (
        <option key={agent.id} value={agent.id}>
          {agentLabel(agent)}
        </option>
      ))}
    </>
  );
}
