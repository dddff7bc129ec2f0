// How an agent is named in the UI, everywhere: by its name (the slug tables, tasks,
// the audit log and the API use), with its display name beside it where a picker or a
// heading has room. One rule, so a picker and a table never name one agent two ways.

type Named = { name: string; displayName?: string | null };

/** "backend-dev · Backend developer" in pickers; just the name when there is no other display name. */
export function agentLabel(agent: Named): string {
  const display = agent.displayName?.trim();
  return display && display !== agent.name ? `${agent.name} · ${display}` : agent.name;
}
