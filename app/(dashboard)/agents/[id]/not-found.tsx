import { StatusPanel } from "@/components/status-page";

export default function AgentNotFound() {
  return (
    <StatusPanel code="404" title="No such agent" href="/agents" linkLabel="All agents" linkTestId="back-to-agents">
      There is no agent at this address: the link may be wrong, or the agent was archived.
    </StatusPanel>
  );
}
