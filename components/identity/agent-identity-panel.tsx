"use client";

// The agent page's identity section: one Monaco tab per identity file, history,
// diffs, rollback, prompt preview. (Built by the identity work.)
export function AgentIdentityPanel({ agentId }: { agentId: string }) {
  return <div data-agent-id={agentId} />;
}
